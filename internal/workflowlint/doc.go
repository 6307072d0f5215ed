// Package workflowlint holds only tests: it lints the repository's GitHub
// Actions workflows and the copy-paste examples with actionlint, and checks
// that the action metadata files (action.yml, the self-test copy and the host
// variant) agree on their inputs and outputs.
package workflowlint
