// Package comment keeps one combined mcp-fuzz comment on a pull request, with
// a section per comment key, so matrix legs and several steps share a comment
// (docs/BEHAVIOUR.md#the-github-action). [Render] and [Parse] are pure functions of the comment body;
// [Upserter] does the read-modify-write against GitHub through a [Client],
// touching only comments by the token's own login ([Whoami]) that are not
// minimized ([Minimized]).
package comment
