// Package llm completes prompts with a language model, for harvest to read
// knowledge out of transcripts. New takes the --llm spec:
//
//	openai:BASE_URL       any OpenAI-compatible server: Ollama (http://localhost:11434/v1),
//	                      vLLM, llama.cpp's server, OpenAI; a model is required
//	openai                openai:https://api.openai.com/v1
//	anthropic[:BASE_URL]  Anthropic's messages API, at https://api.anthropic.com unless
//	                      given (a base without /v1); the model defaults to DefaultAnthropicModel
//	exec:COMMAND          an agent CLI already on the machine, e.g. exec:claude -p or
//	                      exec:codex exec -, given the prompt on stdin; its stdout is the answer
//
// A command gets on stdin the system prompt, a blank line and the prompt;
// the model is passed only where COMMAND says {model}, MaxTokens not at all,
// and its token counts are estimates. Where an API takes no schema (Anthropic,
// a command, OpenAI-compatible servers that refuse json_schema), the system
// prompt asks for JSON following it.
//
// A key is sent over plain http only to a server on this machine
// (localhost, 127.0.0.0/8, ::1): New refuses any other http base that would
// carry one, unless LORE_LLM_ALLOW_HTTP=1 or Options.AllowHTTP says the
// network is trusted.
//
// The HTTP clients retry rate limits, overloads and network errors, but
// not a server that is not there (a refused connection, an unknown host:
// ErrUnreachable); a command is run once. Every client is safe for concurrent use.
package llm
