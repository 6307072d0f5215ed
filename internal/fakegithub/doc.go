// Package fakegithub is an in-process fake of GitHub's REST issue-comment API
// (list, create, edit and delete), served by [net/http/httptest] for tests.
// It paginates like GitHub, and its knobs inject delays, read-only tokens,
// missing repositories and rate limits.
package fakegithub
