package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
)

// codex installs a SessionStart hook with matcher "compact" in $CODEX_HOME/hooks.json (the
// same shape as Claude Code's settings). Codex 0.169.0 runs it after each local compaction
// (source "compact") and adds its hookSpecificOutput.additionalContext to the next request as
// a developer message. Codex runs a user's hook only when config.toml trusts it:
//
//	[hooks.state."<absolute path of hooks.json>:session_start:<group>:<handler>"]
//	trusted_hash = "sha256:<hex>"
//
// where the hash is SHA-256 of the hook's normalized identity as compact JSON with sorted keys
// (codex-rs/hooks/src/engine/discovery.rs, command_hook_hash; config/src/fingerprint.rs,
// version_for_toml). ctxc appends that entry in a block of its own, marked by a comment, and
// removes exactly that block on uninstall. Backups as for Claude Code, for both files.
type codex struct{}

func (codex) Name() string { return agent.Codex }

func (codex) Place() Place {
	return Place{Env: "CODEX_HOME", What: "ctxc's SessionStart(compact) hook"}
}

func (c codex) files(o Options) (hooksJSON, configTOML string) {
	home := defaultPath(o, ".codex")
	if abs, err := filepath.Abs(home); err == nil {
		home = abs
	}
	return filepath.Join(home, "hooks.json"), filepath.Join(home, "config.toml")
}

// trustMarker starts ctxc's block in config.toml.
const trustMarker = "# ctxc: trust for its SessionStart(compact) hook in hooks.json (ctxc hooks uninstall codex removes this block)"

func (c codex) Install(o Options) (Change, error) {
	hj, ct := c.files(o)
	h := ctxcHandler(hookCommand(o, c.Name()))
	h.AdditionalContextLimit = codexContextLimit(o.Args)
	ch, err := installJSON(c.Name(), hj, o, h)
	if err != nil {
		return ch, err
	}
	data, _, _, err := readFile(hj)
	if err != nil {
		return ch, err
	}
	if o.DryRun && ch.Changed {
		data = []byte(ch.Preview)
	}
	block, err := c.trustBlock(hj, data, o)
	if err != nil {
		return ch, err
	}
	return c.writeTrust(ch, ct, block, o)
}

// trustBlock is the config.toml block that trusts ctxc's hook as hooks.json data holds it.
func (c codex) trustBlock(hj string, data []byte, o Options) (string, error) {
	data, root, err := parseObject(hj, data)
	if err != nil {
		return "", err
	}
	_, start, err := sessionStart(hj, root)
	if err != nil {
		return "", err
	}
	f := findCtxc(data, start, c.Name(), o.Ctxc)
	if len(f) == 0 {
		return "", fmt.Errorf("%s: ctxc's hook not found after writing it", hj)
	}
	key := fmt.Sprintf("%s:session_start:%d:%d", hj, f[0].group, f[0].handler)
	return fmt.Sprintf("%s\n[hooks.state.%s]\ntrusted_hash = %q\n", trustMarker, tomlString(key), trustHash(f[0].command, f[0].limit)), nil
}

// codexDefaultLimit is the additionalContextLimit, in tokens (characters / 4), ctxc's hook gets
// in Codex: Codex cuts a longer additionalContext to about that many tokens (its start and
// its end, the middle elided) and saves the whole text under /tmp/hook_outputs/; its own
// default, 2,500 tokens, is smaller than what ctxc restores.
const codexDefaultLimit = 10000

// codexContextLimit is codexDefaultLimit, or more for a --budget above it.
func codexContextLimit(args []string) int {
	limit := codexDefaultLimit
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--budget" {
			var n int
			if _, err := fmt.Sscan(args[i+1], &n); err == nil && n*11/10 > limit {
				limit = n * 11 / 10
			}
		}
	}
	return limit
}

// writeTrust replaces ctxc's block in config.toml by block.
func (c codex) writeTrust(ch Change, ct, block string, o Options) (Change, error) {
	old, mode, exists, err := readFile(ct)
	if err != nil {
		return ch, err
	}
	rest := removeTrustBlocks(old)
	out := append([]byte{}, rest...)
	if len(out) > 0 {
		if out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, '\n')
	}
	out = append(out, block...)
	if bytes.Equal(out, old) {
		return ch, nil
	}
	ch.Changed = true
	if o.DryRun {
		ch.Preview += "\n# " + ct + ":\n" + string(out)
		return ch, nil
	}
	bak, err := writeFile(ct, old, mode, exists, out, true)
	ch.Note = "trusted in " + ct
	if bak != "" {
		ch.Note += " (backup: " + bak + ")"
	}
	return ch, err
}

// removeTrustBlocks removes ctxc's blocks (and the blank line before each) from config.toml.
func removeTrustBlocks(data []byte) []byte {
	lines := strings.SplitAfter(string(data), "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		if strings.TrimRight(lines[i], "\r\n") != trustMarker {
			out = append(out, lines[i])
			continue
		}
		if n := len(out); n > 0 && strings.TrimSpace(out[n-1]) == "" {
			out = out[:n-1]
		}
		// The marker, the table header and its trusted_hash line.
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "[hooks.state.") {
			i++
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "trusted_hash") {
				i++
			}
		}
	}
	return []byte(strings.Join(out, ""))
}

// trustHash is Codex's trusted_hash of ctxc's hook: the normalized identity of a command
// handler (timeout always present, async false, no Windows command, no status message, the
// additionalContextLimit unless absent or Codex's default) in a group with matcher "compact",
// as JSON with sorted keys and no spaces, hashed with SHA-256.
func trustHash(command string, limit int) string {
	h := map[string]any{"type": "command", "command": command, "timeout": hookTimeout, "async": false}
	if limit != 0 && limit != 2500 {
		h["additionalContextLimit"] = limit
	}
	id := map[string]any{
		"event_name": "session_start",
		"matcher":    "compact",
		"hooks":      []map[string]any{h},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // maps are encoded with sorted keys
	enc.SetEscapeHTML(false)
	enc.Encode(id)
	sum := sha256.Sum256(bytes.TrimRight(buf.Bytes(), "\n"))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

func (c codex) Uninstall(o Options) (Change, error) {
	hj, ct := c.files(o)
	ch, err := uninstallJSON(c.Name(), hj, o)
	if err != nil {
		return ch, err
	}
	old, mode, exists, err := readFile(ct)
	if err != nil || !exists {
		return ch, err
	}
	out := removeTrustBlocks(old)
	if bytes.Equal(out, old) {
		return ch, nil
	}
	ch.Changed, ch.Note = true, "trust entry removed from "+ct
	created := createdByCtxc(ct, len(bytes.TrimSpace(out)) == 0)
	if created {
		ch.Note = "removed " + ct + ", which held only ctxc's trust entry"
	}
	if o.DryRun {
		ch.Preview += "\n# " + ct + ":\n" + string(out)
		return ch, nil
	}
	if created {
		return ch, os.Remove(ct)
	}
	_, err = writeFile(ct, old, mode, exists, out, true)
	return ch, err
}

func (c codex) Status(o Options) (State, error) {
	hj, ct := c.files(o)
	st, err := statusJSON(c.Name(), hj, o)
	if err != nil || !st.Installed {
		return st, err
	}
	data, _, _, err := readFile(hj)
	if err != nil {
		return st, err
	}
	block, err := c.trustBlock(hj, data, o)
	if err != nil {
		return st, err
	}
	conf, _, _, err := readFile(ct)
	if err != nil {
		return st, err
	}
	if !bytes.Contains(conf, []byte(block)) {
		st.Note = "not trusted in " + ct + ": Codex will not run it; run ctxc hooks install codex again"
	}
	return st, nil
}
