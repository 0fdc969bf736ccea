package export

import "time"

// SchemaVersion is the version of the tables' schema: every row holds it (schema_version) and
// every file's key-value metadata too (ctxc.schema_version). A change that renames or retypes a
// column raises it; a column added does not.
const SchemaVersion = 1

// The tables, each a folder of DEST: TABLE/agent=AGENT/date=YYYY-MM-DD/part-KEY.parquet. agent
// and date are Hive partition columns: in the path, not in the files.
const (
	TableSessions    = "sessions"
	TableMessages    = "messages"
	TableUsage       = "usage"
	TableCompactions = "compactions"
)

// Tables are the tables in the order a session's parts are written.
var Tables = []string{TableSessions, TableMessages, TableUsage, TableCompactions}

// SessionRow is one session: what `ctxc stats --json` says of it, and its cost.
type SessionRow struct {
	SchemaVersion     int32      `parquet:"schema_version"`
	Session           string     `parquet:"session"`    // the session's name: SRC's base name and its path below SRC
	SessionID         string     `parquet:"session_id"` // the agent's id ("" when it writes none)
	Project           string     `parquet:"project"`    // the folder the agent worked in ("" when not recorded)
	Start             *time.Time `parquet:"start_time"`
	End               *time.Time `parquet:"end_time"`
	Bytes             int64      `parquet:"bytes"`
	Lines             int64      `parquet:"lines"`
	BadLines          int64      `parquet:"bad_lines"`
	Messages          int64      `parquet:"messages"`
	UserMessages      int64      `parquet:"user_messages"`
	AssistantMessages int64      `parquet:"assistant_messages"`
	ToolMessages      int64      `parquet:"tool_messages"`
	ToolCalls         int64      `parquet:"tool_calls"`
	Tokens            int64      `parquet:"tokens"`           // estimated tokens of the whole history
	EffectiveTokens   int64      `parquet:"effective_tokens"` // of the context the agent would send now
	Compactions       int64      `parquet:"compactions"`
	Responses         int64      `parquet:"responses"` // responses with recorded usage
	InputTokens       int64      `parquet:"input_tokens"`
	OutputTokens      int64      `parquet:"output_tokens"`
	CacheWriteTokens  int64      `parquet:"cache_write_tokens"`
	CacheReadTokens   int64      `parquet:"cache_read_tokens"`
	CostUSD           float64    `parquet:"cost_usd"`        // of the priced models
	Unpriced          string     `parquet:"unpriced_models"` // models the price table does not name, comma-separated
	Redacted          int64      `parquet:"redacted"`        // secrets replaced in this session's text
	Exported          time.Time  `parquet:"exported_at"`     // when this export ran
}

// MessageRow is one message of a session's whole history, as `ctxc stats` counts it.
type MessageRow struct {
	SchemaVersion int32      `parquet:"schema_version"`
	Session       string     `parquet:"session"`
	Seq           int64      `parquet:"seq"`  // 0-based, in file order
	Line          int64      `parquet:"line"` // the line it came from (0: synthesized)
	Role          string     `parquet:"role"`
	Time          *time.Time `parquet:"time"`   // its line's timestamp, when it has one
	Tokens        int64      `parquet:"tokens"` // estimated, as stats counts them
	Tool          string     `parquet:"tool"`   // the tools it calls, comma-separated ("" when none)
	Text          string     `parquet:"text"`   // text, tool-call arguments and tool output
}

// UsageRow is one response whose usage the agent recorded.
type UsageRow struct {
	SchemaVersion      int32      `parquet:"schema_version"`
	Session            string     `parquet:"session"`
	Line               int64      `parquet:"line"`
	Time               *time.Time `parquet:"time"`
	Model              string     `parquet:"model"`
	InputTokens        int64      `parquet:"input_tokens"`
	OutputTokens       int64      `parquet:"output_tokens"`
	CacheWriteTokens   int64      `parquet:"cache_write_tokens"`
	CacheWrite1hTokens int64      `parquet:"cache_write_1h_tokens"`
	CacheReadTokens    int64      `parquet:"cache_read_tokens"`
	CostUSD            *float64   `parquet:"cost_usd"` // null when the model is not in the price table
}

// CompactionRow is one compaction of a session and its audit (`ctxc audit --json`).
type CompactionRow struct {
	SchemaVersion int32         `parquet:"schema_version"`
	Session       string        `parquet:"session"`
	Index         int64         `parquet:"index"`        // 1-based, among the session's compactions
	Line          int64         `parquet:"line"`         // the line of its record
	StartOffset   int64         `parquet:"start_offset"` // its records' span in the file, in bytes
	EndOffset     int64         `parquet:"end_offset"`
	By            string        `parquet:"by"` // agent or ctxc
	TokensBefore  int64         `parquet:"tokens_before"`
	TokensAfter   int64         `parquet:"tokens_after"`
	Unreadable    string        `parquet:"unreadable"` // why the summary could not be audited ("" when it was)
	Facts         int64         `parquet:"facts"`
	Kept          int64         `parquet:"kept"`
	Lost          int64         `parquet:"lost"`
	Restored      int64         `parquet:"restored"`
	Recall        float64       `parquet:"recall"`
	Categories    []CategoryRow `parquet:"categories"`
}

// CategoryRow is the audit of one category of facts in a compaction.
type CategoryRow struct {
	Category string `parquet:"category"`
	Facts    int64  `parquet:"facts"`
	Kept     int64  `parquet:"kept"`
	Lost     int64  `parquet:"lost"`
	Summary  int64  `parquet:"summary"` // in the summary alone
}
