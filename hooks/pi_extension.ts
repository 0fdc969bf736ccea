// ctxc's pi extension: placeholder. It registers a session_before_compact handler that returns
// undefined, so pi compacts as usual. ctxc hooks install pi substitutes __CTXC__ (the ctxc
// executable, a JSON string) and __CTXC_ARGS__ (its extra arguments, a JSON array).
const CTXC: string = __CTXC__;
const CTXC_ARGS: string[] = __CTXC_ARGS__;

export default function (pi: any) {
  pi.on("session_before_compact", async (_event: any, _ctx: any) => {
    void CTXC;
    void CTXC_ARGS;
    return undefined;
  });
}
