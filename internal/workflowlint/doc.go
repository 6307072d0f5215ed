// Package workflowlint holds only tests: it lints the repository's GitHub
// Actions workflows and the copy-paste examples with actionlint, checks that
// the action metadata files (action.yml, the self-test copy and the host
// variant) agree on their inputs and outputs, and runs the host variant's
// install script (host/install.sh) against fake git, curl and go.
package workflowlint
