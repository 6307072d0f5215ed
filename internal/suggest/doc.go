// Package suggest finds the names nearest to a mistyped one, for "did you
// mean" hints in configuration errors.
package suggest
