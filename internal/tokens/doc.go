// Package tokens counts tokens the way OpenAI's o200k and cl100k encodings
// cut text, offline, from vocabularies built into the binary.
package tokens
