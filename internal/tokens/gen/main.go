//go:build ignore

// Command gen writes the vocabularies internal/tokens embeds: for each
// encoding, the tokens in rank order, taken from tiktoken-go through its
// public API so that lore counts exactly as it did when it linked
// tiktoken-go. Run it with go generate in internal/tokens.
//
// A file is the number of ranks as a uvarint, then for each rank the
// token's length as a uvarint and its bytes. The rank is implicit; a
// length of zero marks a rank with no token (none today, but tiktoken's
// ranks are not promised to be dense).
package main

import (
	"encoding/binary"
	"fmt"
	"log"
	"os"

	"github.com/tiktoken-go/tokenizer"
)

// Past the last token tiktoken-go decodes nothing, so the scan stops after
// this many empty ranks in a row; the special tokens sit just past the
// vocabulary and are left out, since tiktoken-go's Count treats them as
// plain text.
const gap = 4096

// The lookup in tokens packs a rank into 18 bits and a length into 8.
const (
	maxRanks  = 1 << 18
	maxLength = 255
)

func main() {
	log.SetFlags(0)
	for _, enc := range []tokenizer.Encoding{tokenizer.O200kBase, tokenizer.Cl100kBase} {
		if err := write(enc, string(enc)+".tokens"); err != nil {
			log.Fatalf("%s: %v", enc, err)
		}
	}
}

func write(enc tokenizer.Encoding, path string) error {
	codec, err := tokenizer.Get(enc)
	if err != nil {
		return err
	}
	// Special tokens are not in tiktoken-go's vocabulary, so Decode fails
	// on them as it does on unused ranks.
	var toks []string
	for id, empty := 0, 0; empty < gap; id++ {
		t, err := codec.Decode([]uint{uint(id)})
		if err != nil || t == "" {
			empty++
			toks = append(toks, "")
			continue
		}
		empty = 0
		toks = append(toks, t)
	}
	for len(toks) > 0 && toks[len(toks)-1] == "" {
		toks = toks[:len(toks)-1]
	}
	if len(toks) >= maxRanks {
		return fmt.Errorf("%d ranks: the lookup holds fewer than %d", len(toks), maxRanks)
	}
	seen := make(map[string]int, len(toks))
	for r, t := range toks {
		if t == "" {
			continue
		}
		if len(t) > maxLength {
			return fmt.Errorf("rank %d is %d bytes long: the lookup holds at most %d", r, len(t), maxLength)
		}
		if prev, ok := seen[t]; ok {
			return fmt.Errorf("ranks %d and %d are the same token %q", prev, r, t)
		}
		seen[t] = r
	}
	// Byte-pair merging starts from single bytes, so each must be a token.
	for b := range 256 {
		if _, ok := seen[string([]byte{byte(b)})]; !ok {
			return fmt.Errorf("byte %#x is not a token", b)
		}
	}

	buf := binary.AppendUvarint(nil, uint64(len(toks)))
	for _, t := range toks {
		buf = binary.AppendUvarint(buf, uint64(len(t)))
		buf = append(buf, t...)
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %d ranks, %d tokens, %d bytes\n", path, len(toks), len(seen), len(buf))
	return nil
}
