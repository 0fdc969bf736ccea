// Package transcript owns the agents' session formats: detecting a file's format, reading it
// into one message model (Message, Block) with its statistics, each agent's rule for the context
// it rebuilds on resume (the effective context: Claude Code's compact boundaries, Codex's
// replacement history, pi's compaction entries, ctxc's markers, each agent's code in
// internal/agent/<name>/, listed in agentCodes), and the writers: the compaction records an agent
// resumes (WriterFor), the records of `ctxc repair` (PlanRepair) and new sessions of an agent
// (RenderSession); the message lists of `ctxc load` are internal/msglist's. Reading has one entry point per need: Scan (a
// stream), ScanFile (a file's statistics), LoadFile and LoadFileUpTo (the effective context) and
// Detect (the format alone). It imports neither cobra nor viper.
package transcript
