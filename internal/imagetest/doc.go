// Package imagetest holds the tests of the repository's packaging: the
// Dockerfile (parsed with BuildKit's parser), entrypoint.sh, action.yml and
// its local twin, and a simulated GitHub Actions run of the action through
// entrypoint.sh. It has no non-test code.
package imagetest
