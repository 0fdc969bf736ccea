// Package msglist writes a conversation (the message model of internal/conv) as a message list
// an API takes: OpenAI's Chat Completions messages, Anthropic's Messages, or a ctxc-format file
// whose summaries are marker lines (`ctxc load --as`, `ctxc expand --as`). Before a list is
// written, PairToolCalls makes every tool result answer a call before it, as the APIs require,
// and says what it moved, paired or left out; the new sessions ctxc writes for an agent use it
// too. It reads no file: the readers are internal/transcript's.
package msglist
