// Package sdkserver runs a fixture server built on the go-sdk over stdio.
// Each fixture names itself and registers the one or two tools that show its
// misbehaviour, usually constructors from internal/demo.
package sdkserver
