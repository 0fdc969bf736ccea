package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
)

// The tools' JSON Schemas: what the MCP SDK's schema inference (github.com/google/jsonschema-go)
// makes of the In and Out types, written out so that ctxc links no reflection library.
// Properties without omitempty are required; a jsonschema tag is the property's description.
// TestSchemasAreThoseOfTheTypes infers them from the types and compares.

const expandInSchema = `{
	"type": "object",
	"properties": {
		"path": {"type": "string", "description": "a session file holding a compaction ctxc wrote"},
		"marker": {"type": "integer", "description": "which compaction: 1 = the first in the file (default: the last)"},
		"offset": {"type": "integer", "description": "skip this many messages (to page through a long expansion)"}
	},
	"required": ["path"],
	"additionalProperties": false
}`

const expandOutSchema = `{
	"type": "object",
	"properties": {
		"marker_line": {"type": "integer"},
		"source": {"type": "string"},
		"from_line": {"type": "integer"},
		"to_line": {"type": "integer"},
		"total_messages": {"type": "integer"},
		"offset": {"type": "integer"},
		"messages": {
			"type": ["null", "array"],
			"items": {
				"type": "object",
				"properties": {
					"line": {"type": "integer"},
					"role": {"type": "string"},
					"text": {"type": "string"}
				},
				"required": ["line", "role", "text"],
				"additionalProperties": false
			}
		},
		"truncated": {"type": "boolean"},
		"note": {"type": "string"}
	},
	"required": ["marker_line", "source", "from_line", "to_line", "total_messages", "offset", "messages", "truncated"],
	"additionalProperties": false
}`

const grepInSchema = `{
	"type": "object",
	"properties": {
		"pattern": {"type": "string", "description": "RE2 regular expression (or a fixed string with fixed=true) searched in the decoded message text"},
		"paths": {"type": ["null", "array"], "items": {"type": "string"}, "description": "session files or directories (every *.jsonl below them)"},
		"fixed": {"type": "boolean", "description": "the pattern is a fixed string"},
		"ignore_case": {"type": "boolean", "description": "ignore case"},
		"roles": {"type": ["null", "array"], "items": {"type": "string"}, "description": "only these roles: user, assistant, tool, system, developer, summary"},
		"context": {"type": "boolean", "description": "search only the effective context, not the whole history"},
		"max_hits": {"type": "integer", "description": "at most this many matches (default 50)"}
	},
	"required": ["pattern", "paths"],
	"additionalProperties": false
}`

const grepOutSchema = `{
	"type": "object",
	"properties": {
		"hits": {
			"type": ["null", "array"],
			"items": {
				"type": "object",
				"properties": {
					"path": {"type": "string"},
					"line": {"type": "integer"},
					"role": {"type": "string"},
					"message": {"type": "integer"},
					"covered_by": {"type": "integer", "description": "line of the later compaction that summarized this line"},
					"covered_span": {"type": ["null", "array"], "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
					"text": {"type": "string"}
				},
				"required": ["path", "line", "role", "message", "text"],
				"additionalProperties": false
			}
		},
		"truncated": {"type": "boolean"},
		"note": {"type": "string"},
		"errors": {"type": ["null", "array"], "items": {"type": "string"}}
	},
	"required": ["hits", "truncated"],
	"additionalProperties": false
}`

// searchInSchema is the search tool's input schema: its "agent" names every format of the
// registry (SearchIn's tag says the same: TestSchemasAreThoseOfTheTypes compares them).
func searchInSchema() string {
	return strings.Replace(searchInSchemaText, "{{agents}}", strings.Join(agent.Names(), ", "), 1)
}

const searchInSchemaText = `{
	"type": "object",
	"properties": {
		"query": {"type": "string", "description": "words to find (ranked with BM25: rare words weigh more)"},
		"paths": {"type": ["null", "array"], "items": {"type": "string"}, "description": "session files or directories: the index is brought up to date with them first, and only they are searched"},
		"agent": {"type": "string", "description": "only sessions of this format: {{agents}}"},
		"project": {"type": "string", "description": "only sessions whose project folder contains this"},
		"roles": {"type": ["null", "array"], "items": {"type": "string"}, "description": "only these roles: user, assistant, tool, system, summary"},
		"since": {"type": "string", "description": "only messages at or after this RFC 3339 time"},
		"until": {"type": "string", "description": "only messages before this RFC 3339 time"},
		"limit": {"type": "integer", "description": "at most this many results (default 10, at most 100)"}
	},
	"required": ["query", "paths"],
	"additionalProperties": false
}`

const searchOutSchema = `{
	"type": "object",
	"properties": {
		"results": {
			"type": ["null", "array"],
			"items": {
				"type": "object",
				"properties": {
					"path": {"type": "string"},
					"line": {"type": "integer"},
					"session": {"type": "string"},
					"agent": {"type": "string"},
					"project": {"type": "string"},
					"time": {"type": "string"},
					"role": {"type": "string"},
					"score": {"type": "number"},
					"snippet": {"type": "string"},
					"resume": {"type": "string"}
				},
				"required": ["path", "line", "agent", "role", "score", "snippet"],
				"additionalProperties": false
			}
		},
		"truncated": {"type": "boolean"},
		"note": {"type": "string"},
		"errors": {"type": ["null", "array"], "items": {"type": "string"}}
	},
	"required": ["results", "truncated"],
	"additionalProperties": false
}`

const statsInSchema = `{
	"type": "object",
	"properties": {
		"paths": {"type": ["null", "array"], "items": {"type": "string"}, "description": "session files or directories"}
	},
	"required": ["paths"],
	"additionalProperties": false
}`

const statsOutSchema = `{
	"type": "object",
	"properties": {
		"files": {"type": ["null", "array"], "items": true},
		"truncated": {"type": "boolean"},
		"note": {"type": "string"},
		"errors": {"type": ["null", "array"], "items": {"type": "string"}}
	},
	"required": ["files", "truncated"],
	"additionalProperties": false
}`

// schema is the part of JSON Schema the input schemas use: type, properties, required,
// additionalProperties and items (a description is for the agent). A schema with another
// keyword does not parse, so that no keyword is silently left unchecked.
type schema struct {
	Type                 json.RawMessage    `json:"type"`
	Description          string             `json:"description"`
	Properties           map[string]*schema `json:"properties"`
	Required             []string           `json:"required"`
	AdditionalProperties *bool              `json:"additionalProperties"`
	Items                *schema            `json:"items"`

	types []string // Type, one name or several
}

// parseSchema reads a schema of the tools' input.
func parseSchema(text string) (*schema, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	var s schema
	if err := dec.Decode(&s); err != nil {
		return nil, err
	}
	return &s, s.resolve()
}

// mustSchema is parseSchema of a schema written in this package.
func mustSchema(text string) *schema {
	s, err := parseSchema(text)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: a tool's schema: %v", err))
	}
	return s
}

// resolve reads the type names of s and of the schemas below it.
func (s *schema) resolve() error {
	var one string
	if err := json.Unmarshal(s.Type, &one); err == nil {
		s.types = []string{one}
	} else if err := json.Unmarshal(s.Type, &s.types); err != nil || len(s.types) == 0 {
		return fmt.Errorf("type %s: want a name or a list of names", s.Type)
	}
	for _, p := range s.Properties {
		if err := p.resolve(); err != nil {
			return err
		}
	}
	if s.Items != nil {
		return s.Items.resolve()
	}
	return nil
}

// validate checks a tool's arguments (absent or null: no arguments) against s and returns them
// decoded, each integer written as one (3.0 and 1e3 are integers to JSON Schema, not to a Go
// int), ready to be decoded into the tool's In type. Its error lists every problem found.
func (s *schema) validate(args json.RawMessage) (any, error) {
	var v any = map[string]any{}
	if len(args) > 0 && !bytes.Equal(args, []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("validating \"arguments\": %v", err)
		}
	}
	var problems []string
	v = s.check(v, "", &problems)
	if len(problems) > 0 {
		return nil, fmt.Errorf("validating \"arguments\": %s", strings.Join(problems, "; "))
	}
	return v, nil
}

// check checks v, found at the path at ("" for the arguments themselves), and returns it with
// its integers normalized.
func (s *schema) check(v any, at string, problems *[]string) any {
	got := jsonType(v)
	if !s.allows(got) {
		*problems = append(*problems, fmt.Sprintf("%shas type %q, want %s", prefix(at), got, s.want()))
		return v
	}
	switch v := v.(type) {
	case json.Number:
		if got == "integer" {
			if i, err := strconv.ParseInt(v.String(), 10, 64); err == nil {
				return json.Number(strconv.FormatInt(i, 10))
			}
			if f, _ := strconv.ParseFloat(v.String(), 64); math.Abs(f) < 1<<63 {
				return json.Number(strconv.FormatInt(int64(f), 10))
			}
		}
	case map[string]any:
		s.checkObject(v, at, problems)
	case []any:
		if s.Items != nil {
			for i, e := range v {
				v[i] = s.Items.check(e, fmt.Sprintf("%s[%d]", at, i), problems)
			}
		}
	}
	return v
}

// checkObject checks an object's properties: the required ones present, no other than those
// the schema names (when it says so), each of the type it says.
func (s *schema) checkObject(v map[string]any, at string, problems *[]string) {
	var missing, unknown []string
	for _, name := range s.Required {
		if _, ok := v[name]; !ok {
			missing = append(missing, strconv.Quote(name))
		}
	}
	names := make([]string, 0, len(v))
	for name := range v {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p, ok := s.Properties[name]
		if !ok {
			if s.AdditionalProperties != nil && !*s.AdditionalProperties {
				unknown = append(unknown, strconv.Quote(name))
			}
			continue
		}
		v[name] = p.check(v[name], join(at, name), problems)
	}
	if len(missing) > 0 {
		*problems = append(*problems, fmt.Sprintf("%smissing properties: [%s]", prefix(at), strings.Join(missing, ", ")))
	}
	if len(unknown) > 0 {
		*problems = append(*problems, fmt.Sprintf("%sunexpected additional properties: [%s]", prefix(at), strings.Join(unknown, ", ")))
	}
}

// allows says whether a value of the JSON type got is one of s's types.
func (s *schema) allows(got string) bool {
	return slices.Contains(s.types, got) || got == "integer" && slices.Contains(s.types, "number")
}

// want names s's types for a message.
func (s *schema) want() string {
	if len(s.types) == 1 {
		return strconv.Quote(s.types[0])
	}
	return "one of " + strconv.Quote(strings.Join(s.types, ", "))
}

// jsonType is the JSON Schema type of a value decoded with UseNumber: a number without a
// fractional part is an integer.
func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		f, err := strconv.ParseFloat(v.String(), 64)
		if err == nil && f == math.Trunc(f) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

func prefix(at string) string {
	if at == "" {
		return ""
	}
	return at + ": "
}

func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// decodeArgs decodes validated arguments into a tool's In type.
func decodeArgs(args any, in any) error {
	b, err := json.Marshal(args)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fmt.Errorf("validating \"arguments\": %s: %s is out of range for %s", te.Field, te.Value, te.Type)
		}
		return err
	}
	return nil
}
