package transcript

// The conversation model and the reader API are internal/conv's: the names callers of
// transcript know stay here as aliases.

import "github.com/ctxc/ctxc/internal/conv"

type (
	Message          = conv.Message
	Block            = conv.Block
	BlockKind        = conv.BlockKind
	Role             = conv.Role
	Usage            = conv.Usage
	Dialect          = conv.Dialect
	SrcRef           = conv.SrcRef
	RoleCounts       = conv.RoleCounts
	RecordedUsage    = conv.RecordedUsage
	TopMessage       = conv.TopMessage
	Stats            = conv.Stats
	CompactionRecord = conv.CompactionRecord
	Counted          = conv.Counted
	Record           = conv.Record
	Format           = conv.Format
	Compaction       = conv.Compaction
	Written          = conv.Written
	BesideFile       = conv.BesideFile
	Writer           = conv.Writer
	Source           = conv.Source
	MarkerMeta       = conv.MarkerMeta
	Marker           = conv.Marker
	NewSession       = conv.NewSession
	Dropped          = conv.Dropped
	LedgerCounts     = conv.LedgerCounts
	MarkerSource     = conv.MarkerSource
	Cut              = conv.Cut
	DataError        = conv.DataError
)

type (
	ref          = conv.Ref
	formatReader = conv.Reader
	scanLine     = conv.Line
	textMode     = conv.TextMode
	object       = conv.Object
	span         = conv.Span
)

const (
	ToolTextWindow   = conv.ToolTextWindow
	RoleSystem       = conv.RoleSystem
	RoleDeveloper    = conv.RoleDeveloper
	RoleUser         = conv.RoleUser
	RoleAssistant    = conv.RoleAssistant
	RoleTool         = conv.RoleTool
	BlockText        = conv.BlockText
	BlockThinking    = conv.BlockThinking
	BlockToolCall    = conv.BlockToolCall
	BlockToolResult  = conv.BlockToolResult
	BlockImage       = conv.BlockImage
	BlockOpaque      = conv.BlockOpaque
	DialectNone      = conv.DialectNone
	DialectOpenAI    = conv.DialectOpenAI
	DialectAnthropic = conv.DialectAnthropic
	SrcSynthesized   = conv.SrcSynthesized
	SummaryPreamble  = conv.SummaryPreamble
	FormatUnknown    = conv.FormatUnknown
	FormatOpenAI     = conv.FormatOpenAI
	FormatAnthropic  = conv.FormatAnthropic
	FormatCtxc       = conv.FormatCtxc
	FormatClaude     = conv.FormatClaude
	FormatCodex      = conv.FormatCodex
	FormatPi         = conv.FormatPi
	FormatCopilot    = conv.FormatCopilot
	FormatDroid      = conv.FormatDroid
	FormatGemini     = conv.FormatGemini
	FormatQwen       = conv.FormatQwen
	FormatOpencode   = conv.FormatOpencode
	FormatAider      = conv.FormatAider
	FormatOpenhands  = conv.FormatOpenhands
	FormatContinue   = conv.FormatContinue
	FormatKilo       = conv.FormatKilo
	FormatCline      = conv.FormatCline
	FormatGoose      = conv.FormatGoose
	FormatNanocoder  = conv.FormatNanocoder
	FormatSWEAgent   = conv.FormatSWEAgent
	FormatMiniSWE    = conv.FormatMiniSWE
	FormatClineTask  = conv.FormatClineTask
	FormatRooCode    = conv.FormatRooCode
	FormatOmp        = conv.FormatOmp
)

// SummaryMessage is conv.SummaryMessage.
func SummaryMessage(summary string, line int) Message { return conv.SummaryMessage(summary, line) }
