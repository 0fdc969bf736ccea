package cmd

import (
	"fmt"
	"strings"
	"time"
)

var timeNow = time.Now

// genSession writes a deterministic OpenAI-format session with tool calls: turns × ~400 tokens.
func genSession(seed, turns int) string {
	var b strings.Builder
	b.WriteString(`{"role":"system","content":"You are a careful coding agent."}` + "\n")
	b.WriteString(fmt.Sprintf(`{"role":"user","content":"Task %d: refactor the parser in pkg/parse and keep the public API stable."}`+"\n", seed))
	filler := strings.Repeat("The parser reads tokens from the lexer and builds the tree. ", 25)
	for t := 0; t < turns; t++ {
		id := fmt.Sprintf("call_%d_%d", seed, t)
		b.WriteString(fmt.Sprintf(`{"role":"assistant","content":"Step %d: checking pkg/parse/file%d.go","tool_calls":[{"id":"%s","type":"function","function":{"name":"read","arguments":"{\"path\":\"pkg/parse/file%d.go\"}"}}]}`+"\n", t, t, id, t))
		b.WriteString(fmt.Sprintf(`{"role":"tool","tool_call_id":"%s","content":"%s"}`+"\n", id, filler))
		if t%5 == 4 {
			b.WriteString(fmt.Sprintf(`{"role":"user","content":"Looks good, continue with step %d."}`+"\n", t+1))
		}
	}
	b.WriteString(`{"role":"assistant","content":"All steps done; tests pass."}` + "\n")
	return b.String()
}
