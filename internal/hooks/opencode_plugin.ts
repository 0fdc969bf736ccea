// ctxc inside opencode's own compaction (or Kilo's, opencode's descendant), as a plugin it loads
// from its plugin folder.
// - experimental.session.compacting (before opencode summarizes): `ctxc hook AGENT` reads the
//   session from opencode's store (read-only) and answers a PreCompact event with the session's
//   fact ledger, which goes into output.context: opencode's summarizer is given the facts.
// - once the summary is written: `ctxc hook AGENT` answers SessionStart (source compact) with
//   what the summary left out of the ledger, and the plugin adds it to the session as a message
//   of the user's (noReply, synthetic), which opencode stores and sends with every later request,
//   after a restart too. After an automatic compaction that goes on with opencode's "Continue"
//   message, that is at experimental.compaction.autocontinue, which opencode awaits before it
//   writes that message: the note is right after the summary. Otherwise (a compaction asked for,
//   or one that replays the user's message after the summary) opencode calls no hook between
//   the summary and its next request: the note waits for session.compacted and then for the
//   session to be idle, so that opencode does not take it for a new request to answer.
// It never breaks opencode: a missing ctxc, a failure or a timeout adds nothing, and opencode
// compacts as always. ctxc hooks install fills in the constants below: keep their lines.
import { spawn } from "node:child_process";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

const CTXC: string = __CTXC__;
const CTXC_ARGS: string[] = __CTXC_ARGS__;
const AGENT: string = __CTXC_AGENT__;
const DB_ENV: string = __CTXC_DB_ENV__;
const TIMEOUT_MS = 30 * 1000;

export default async function ctxcCompaction(input: any) {
  const client = input?.client;
  const directory: string = typeof input?.directory === "string" ? input.directory : "";
  // The sessions whose compaction began in this process and whose note is not sent yet, and
  // those of them whose summary is written, their note waiting for the session to be idle.
  const pending = new Set<string>();
  const compacted = new Set<string>();

  async function note(event: string, sessionID: string): Promise<string> {
    const request = JSON.stringify({
      hook_event_name: event,
      source: event === "SessionStart" ? "compact" : "",
      session_id: sessionID,
      compacted: event === "SessionStart",
      transcript_path: store() + "#" + sessionID,
      cwd: directory,
    });
    const answer = JSON.parse(await runCtxc(request));
    const text = answer?.hookSpecificOutput?.additionalContext;
    return typeof text === "string" ? text : "";
  }

  async function restore(sessionID: string): Promise<void> {
    compacted.delete(sessionID);
    if (!pending.delete(sessionID)) return;
    const text = await note("SessionStart", sessionID);
    if (!text) return;
    await client.session.prompt({
      path: { id: sessionID },
      body: { noReply: true, parts: [{ type: "text", text, synthetic: true }] },
    });
  }

  return {
    "experimental.session.compacting": async (hook: any, output: any) => {
      try {
        const sessionID = hook?.sessionID;
        if (typeof sessionID !== "string" || !Array.isArray(output?.context)) return;
        pending.add(sessionID);
        const text = await note("PreCompact", sessionID);
        if (text) output.context.push(text);
      } catch {
        // opencode summarizes without ctxc's ledger
      }
    },
    "experimental.compaction.autocontinue": async (hook: any) => {
      try {
        if (typeof hook?.sessionID === "string") await restore(hook.sessionID);
      } catch {
        // opencode goes on without ctxc's note
      }
    },
    event: async ({ event }: any) => {
      try {
        const sessionID = event?.properties?.sessionID;
        if (typeof sessionID !== "string") return;
        if (event.type === "session.compacted" && pending.has(sessionID)) compacted.add(sessionID);
        const idle = event.type === "session.idle" || (event.type === "session.status" && event.properties?.status?.type === "idle");
        if (idle && compacted.has(sessionID)) await restore(sessionID);
      } catch {
        // opencode goes on without ctxc's note
      }
    },
  };
}

// store is the agent's SQLite store, as opencode (or Kilo) finds it: $DB_ENV (relative: in its
// data folder), else AGENT.db in $XDG_DATA_HOME/AGENT (default ~/.local/share/AGENT).
function store(): string {
  const data = join(process.env.XDG_DATA_HOME || join(homedir(), ".local", "share"), AGENT);
  const db = process.env[DB_ENV];
  if (db) return isAbsolute(db) ? db : join(data, db);
  return join(data, AGENT + ".db");
}

// runCtxc runs `ctxc hook AGENT` with the hook input on stdin and resolves with its stdout; it
// rejects on a spawn error, a non-zero exit or the timeout.
function runCtxc(input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let done = false;
    let out = "";
    let child: any;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) {
        try { child?.kill("SIGTERM"); } catch { /* already gone */ }
        reject(err);
      } else {
        resolve(out);
      }
    };
    const timer = setTimeout(() => finish(new Error("ctxc timed out")), TIMEOUT_MS);
    try {
      child = spawn(CTXC, ["hook", AGENT, ...CTXC_ARGS], { stdio: ["pipe", "pipe", "ignore"] });
    } catch (e: any) {
      return finish(e instanceof Error ? e : new Error(String(e)));
    }
    child.on("error", (e: Error) => finish(e));
    child.stdout.on("data", (d: Buffer) => { out += d.toString("utf8"); });
    child.on("close", (code: number) => finish(code === 0 ? undefined : new Error("ctxc exited with " + code)));
    child.stdin.on("error", () => { /* ctxc gone: close reports it */ });
    child.stdin.end(input);
  });
}
