// Package sarifloc finds the repository file that SARIF results point at.
// A finding about a running server has no source line, but code scanning
// refuses a result without a location in a repository file, so results
// point at the file that configures or defines the server: see [Find] for
// the order.
package sarifloc
