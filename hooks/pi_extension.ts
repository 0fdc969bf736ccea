// ctxc's pi extension (placeholder): a session_before_compact handler that returns undefined,
// so pi compacts as usual. ctxc hooks install pi fills in the two constants below: the ctxc
// executable (a JSON string) and its extra arguments (a JSON array); keep their two lines.
const CTXC: string = __CTXC__;
const CTXC_ARGS: string[] = __CTXC_ARGS__;

export default function (pi: any) {
  pi.on("session_before_compact", async (_event: any, _ctx: any) => {
    void CTXC;
    void CTXC_ARGS;
    return undefined;
  });
}
