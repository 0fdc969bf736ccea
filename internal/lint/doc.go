// Package lint owns the checks of a session's structure and their repair: File lists what an
// agent would choke on when it resumes the session (a tool call without its result, an orphan
// result, a duplicate id, a broken parent chain, a summary nested in a summary), and Repair
// appends the records, in the agent's own format, that close the open calls, through safewrite.
package lint
