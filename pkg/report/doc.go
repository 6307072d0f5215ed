// Package report is the data model of an mcp-fuzz run: the target, the server,
// every case with its verdict and flags, findings and lint. The JSON encoding of
// [Report] is the stable core that scripts and the GitHub Action read.
package report
