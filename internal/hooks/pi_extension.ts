// ctxc as pi's compactor. At session_before_compact, pi's messages to summarize are handed to
// `ctxc summarize` (the configured summarizer plus the fact ledger's carried facts, pi's previous
// summary carried forward), and ctxc's summary replaces pi's. When ctxc cannot answer (not
// installed, a summarizer that fails, a timeout, pi aborting), the handler returns nothing and
// pi compacts with its own summarizer. It never throws.
// With a memory file set, the session's memory is merged into it first (`ctxc memory --update`,
// run in the session's folder), so it is written before pi compacts; a failure there is ignored.
// ctxc hooks install pi fills in the three constants below: keep their three lines.
import { spawn } from "node:child_process";

const CTXC: string = __CTXC__;
const CTXC_ARGS: string[] = __CTXC_ARGS__;
const CTXC_MEMORY: string = __CTXC_MEMORY__;
const TIMEOUT_MS = 5 * 60 * 1000;
const MEMORY_TIMEOUT_MS = 60 * 1000;

export default function (pi: any) {
  pi.on("session_before_compact", async (event: any, ctx: any) => {
    await flushMemory(ctx, event?.signal);
    try {
      const p = event?.preparation;
      const messages = Array.isArray(p?.messagesToSummarize) ? p.messagesToSummarize : [];
      if (!p || (messages.length === 0 && !p.previousSummary)) return undefined;
      const request = JSON.stringify({
        agent: "pi",
        messages,
        turn_prefix_messages: p.isSplitTurn && Array.isArray(p.turnPrefixMessages) ? p.turnPrefixMessages : [],
        previous_summary: typeof p.previousSummary === "string" ? p.previousSummary : "",
        first_kept_entry_id: p.firstKeptEntryId,
        tokens_before: p.tokensBefore ?? 0,
        custom_instructions: typeof event.customInstructions === "string" ? event.customInstructions : "",
      });
      const answer = JSON.parse(await runCtxc(request, event.signal));
      if (typeof answer?.summary !== "string" || answer.summary.trim() === "") return undefined;
      return {
        compaction: {
          summary: answer.summary,
          firstKeptEntryId: p.firstKeptEntryId,
          tokensBefore: p.tokensBefore,
          details: answer.details,
        },
      };
    } catch {
      return undefined;
    }
  });
}

// flushMemory merges the session's memory into the memory file; it never rejects.
async function flushMemory(ctx: any, signal?: AbortSignal): Promise<void> {
  try {
    const file = ctx?.sessionManager?.getSessionFile?.();
    if (!CTXC_MEMORY || typeof file !== "string" || file === "") return;
    const cwd = typeof ctx?.cwd === "string" && ctx.cwd !== "" ? ctx.cwd : undefined;
    await runCtxc("", signal, ["memory", "-q", "--update", CTXC_MEMORY, file], cwd, MEMORY_TIMEOUT_MS);
  } catch {
    // pi compacts whatever happened to the memory file
  }
}

// runCtxc runs ctxc (by default `ctxc summarize` with the request on stdin) and resolves with
// its stdout; it rejects on a spawn error, a non-zero exit, the timeout or pi's abort signal.
function runCtxc(input: string, signal?: AbortSignal, args?: string[], cwd?: string, timeoutMs: number = TIMEOUT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    let done = false;
    let out = "";
    let child: any;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener?.("abort", onAbort);
      if (err) {
        try { child?.kill("SIGTERM"); } catch { /* already gone */ }
        reject(err);
      } else {
        resolve(out);
      }
    };
    const onAbort = () => finish(new Error("aborted by pi"));
    const timer = setTimeout(() => finish(new Error("ctxc timed out")), timeoutMs);
    if (signal?.aborted) return onAbort();
    signal?.addEventListener?.("abort", onAbort, { once: true });
    try {
      child = spawn(CTXC, args ?? ["summarize", "-q", ...CTXC_ARGS], { stdio: ["pipe", "pipe", "ignore"], cwd });
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
