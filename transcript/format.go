package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/valyala/fastjson"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/regularfile"
)

// ErrNotTranscript is wrapped by every error that says a file or folder
// holds no transcript lore can read.
var ErrNotTranscript = errors.New("not a transcript")

func notTranscript(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotTranscript, fmt.Sprintf(format, args...))
}

// ErrEmpty is matched by the errors for transcripts of a known agent that
// hold no turn at all (Gemini CLI writes one at every start).
var ErrEmpty = errors.New("empty session")

type emptyError string

func (e emptyError) Error() string        { return string(e) }
func (e emptyError) Is(target error) bool { return target == ErrEmpty }

func emptySession(format string, args ...any) error {
	return emptyError(fmt.Sprintf(format, args...))
}

// Options say what a read keeps.
type Options struct {
	// Messages keeps message bodies; without it only counters are kept.
	Messages bool
	// Workers is how many files are read at once; 0 means one per CPU.
	Workers int
	// NoGit skips git lookups: repo is then the cwd's base name or what
	// the transcript says.
	NoGit bool
	// Defaults says the paths of a Scan are the agents' default
	// locations, read as DefaultInputs reads them.
	Defaults bool
	// Progress, if set, is called as files are read with the bytes done
	// and the bytes in all; calls come from several goroutines.
	Progress func(done, total int64)
}

// emitFunc receives each session a reader finds.
type emitFunc func(*lore.Session)

// formats is every transcript format lore reads, with where each agent
// writes them. Its order is the order of detection: a file goes to the
// first format of its kind that claims it, so specific formats come
// before general ones, and plain OpenAI messages, which many an agent's
// log could pass for, come last. The kinds are tried in an order of their
// own (readFile): raw formats on the first bytes, line formats on the
// first JSON line, document formats on the whole document; dir formats
// are tried on folders as they are walked, database formats on what the
// sqlite raw format opened.
var formats = []format{
	{name: "aider", agent: lore.AgentAider, roots: aiderRoots,
		raw: &rawFormat{sniff: aiderSniff, read: aiderRead}},

	{name: "amp", agent: lore.AgentAmp, roots: ampRoots,
		doc: &docFormat{sniff: sniffAmp, read: readAmp}},
	// Qwen Code's records share Claude Code's keys (uuid, sessionId,
	// type, cwd, version): its sniff, on what only Qwen writes, goes first.
	{name: "qwen-code", agent: lore.AgentQwenCode, roots: qwenRoots,
		line: &lineFormat{sniff: sniffQwen, read: readQwen}},
	{name: "qwen-code-checkpoint", agent: lore.AgentQwenCode,
		doc: &docFormat{sniff: sniffQwenCheckpoint, read: readQwenCheckpoint}},

	{name: "claude-code", agent: lore.AgentClaudeCode, roots: claudeRoots,
		line: &lineFormat{sniff: sniffClaude, read: readClaude}},

	{name: "cline", agent: lore.AgentCline, roots: clineRoots,
		dir: &dirFormat{match: clineMatch, read: clineReadDir}},
	{name: "cline-file", agent: lore.AgentCline,
		doc: &docFormat{sniff: clineSniffDoc, read: clineReadDoc}},

	{name: "codex", agent: lore.AgentCodex, roots: codexRoots,
		line: &lineFormat{sniff: sniffCodex, read: readCodex}},
	{name: "codex-ts", agent: lore.AgentCodex,
		doc: &docFormat{sniff: sniffCodexTS, read: readCodexTS}},

	// The Copilot CLI's event log; VS Code's Copilot Chat writes the same
	// shape (readCopilot tells them apart).
	{name: "copilot-cli", agent: lore.AgentCopilotCLI, roots: copilotRoots,
		line: &lineFormat{sniff: sniffCopilot, read: readCopilot}},
	{name: "copilot-chat", agent: lore.AgentCopilotChat, roots: copilotChatRoots,
		doc: &docFormat{sniff: sniffCopilotChatDoc, read: readCopilotChatDoc}},
	{name: "copilot-chat-log", agent: lore.AgentCopilotChat,
		line: &lineFormat{sniff: sniffCopilotChatLog, read: readCopilotChatLog}},
	{name: "droid", agent: lore.AgentDroid, roots: droidRoots,
		line: &lineFormat{sniff: sniffDroid, read: readDroid}},
	{name: "crush", agent: lore.AgentCrush, roots: crushRoots,
		db: &sqlitedbReader{hint: crushDBHint, fileNames: []string{"crush.db"}, match: crushDBMatch, read: crushReadDB}},
	{name: "cursor", agent: lore.AgentCursor, roots: cursorRoots,
		line: &lineFormat{sniff: sniffCursorLine, read: readCursorLines}},
	{name: "cursor", agent: lore.AgentCursor,
		db: &sqlitedbReader{hint: cursorDBHint, match: cursorDBMatch, read: cursorReadDB}},
	{name: "cursor-store", agent: lore.AgentCursor,
		db: &sqlitedbReader{hint: cursorStoreHint, match: cursorStoreMatch, read: cursorReadStore}},

	{name: "gemini-cli", agent: lore.AgentGeminiCLI, roots: geminiRoots,
		line: &lineFormat{sniff: sniffGeminiLine, read: readGeminiLines}},
	{name: "gemini-cli", agent: lore.AgentGeminiCLI,
		doc: &docFormat{sniff: sniffGeminiDoc, read: readGeminiDoc}},
	{name: "gemini-cli-checkpoint", agent: lore.AgentGeminiCLI,
		doc: &docFormat{sniff: sniffGeminiCheckpoint, read: readGeminiCheckpoint}},

	{name: "goose", agent: lore.AgentGoose, roots: gooseRoots,
		line: &lineFormat{sniff: gooseSniffLine, read: gooseReadLines}},
	{name: "goose", agent: lore.AgentGoose,
		db: &sqlitedbReader{hint: gooseDBHint, fileNames: []string{"sessions.db"}, match: gooseDBMatch, read: gooseReadDB}},

	{name: "hermes", agent: lore.AgentHermes, roots: hermesRoots,
		line: &lineFormat{sniff: hermesSniffLine, read: hermesReadLines}},
	{name: "hermes-trajectory", agent: lore.AgentHermes,
		line: &lineFormat{sniff: hermesSniffTrajectory, read: hermesReadTrajectories}},
	{name: "hermes-snapshot", agent: lore.AgentHermes,
		doc: &docFormat{sniff: hermesSniffSnapshot, read: hermesReadSnapshot}},
	{name: "hermes", agent: lore.AgentHermes,
		db: &sqlitedbReader{hint: hermesDBHint, fileNames: []string{"state.db"}, match: hermesDBMatch, read: hermesReadDB}},

	// The Kilo CLI, an OpenCode fork, is read here too (opencodeRoots).
	{name: "opencode", agent: lore.AgentOpenCode, roots: opencodeRoots,
		doc: &docFormat{sniff: ocSniffExport, read: ocReadExport}},
	{name: "opencode-session", agent: lore.AgentOpenCode,
		doc: &docFormat{sniff: ocSniffSessionFile, read: ocReadSessionFile}},
	{name: "opencode-storage", agent: lore.AgentOpenCode,
		dir: &dirFormat{match: ocMatchStorage, read: ocReadStorage}},
	{name: "opencode", agent: lore.AgentOpenCode,
		db: &sqlitedbReader{hint: ocDBHint, fileNames: []string{"opencode.db", "kilo.db"}, match: ocDBMatch, read: ocReadDB}},
	{name: "kimi-cli", agent: lore.AgentKimiCLI, roots: kimiRoots,
		dir: &dirFormat{match: kimiMatch, read: kimiReadDir}},
	{name: "kimi-cli-wire", agent: lore.AgentKimiCLI,
		line: &lineFormat{sniff: sniffKimiWire, read: kimiReadWire}},
	{name: "kimi-cli-context", agent: lore.AgentKimiCLI,
		line: &lineFormat{sniff: sniffKimiContext, read: kimiReadContext}},

	{name: "openhands", agent: lore.AgentOpenHands, roots: openhandsRoots,
		doc: &docFormat{sniff: sniffOpenHandsDoc, read: readOpenHandsDoc}},
	{name: "openhands-eval", agent: lore.AgentOpenHands,
		line: &lineFormat{sniff: sniffOpenHandsEvalLine, read: readOpenHandsEval}},
	{name: "openhands-v1", agent: lore.AgentOpenHands,
		dir: &dirFormat{match: matchOpenHandsV1, read: readOpenHandsV1}},
	{name: "openhands-events", agent: lore.AgentOpenHands,
		dir: &dirFormat{match: matchOpenHandsV0Dir, read: readOpenHandsV0Dir}},

	// sweRoots lists mini-swe-agent's folders too.
	{name: "swe-agent", agent: lore.AgentSWEAgent, roots: sweRoots,
		doc: &docFormat{sniff: sniffSWEAgent, read: readSWEAgent}},
	{name: "mini-swe-agent", agent: lore.AgentMiniSWEAgent,
		doc: &docFormat{sniff: sniffMini, read: readMini}},

	{name: "openai", agent: lore.AgentOpenAI,
		doc: &docFormat{sniff: sniffOpenAIDoc, read: readOpenAIDoc}},
	{name: "openai-jsonl", agent: lore.AgentOpenAI,
		line: &lineFormat{sniff: sniffOpenAILine, read: readOpenAILines}},

	// Crush's, Cursor's, Goose's, Hermes's and OpenCode's databases; their
	// db formats above say whose.
	{name: "sqlite",
		raw: &rawFormat{sniff: sqlitedbSniff, read: sqlitedbRead}},
}

// A format is one way an agent writes transcripts. Exactly one of line,
// doc, dir, raw and db is set: it says how the format is recognised and
// read.
type format struct {
	name  string
	agent string // "" when the content decides (a SQLite database)
	// roots says where the agent writes; set on one format of each
	// agent.
	roots func(Env) []Root

	line *lineFormat
	doc  *docFormat
	dir  *dirFormat
	raw  *rawFormat
	db   *sqlitedbReader
}

// A lineFormat is a JSON-lines transcript, recognised by its first object
// and read as a stream: memory does not grow with the file.
type lineFormat struct {
	// sniff reports whether a file whose first JSON line is first, and
	// whose name is name, is in this format.
	sniff func(name string, first *fastjson.Value) bool
	read  func(ctx context.Context, in *input, emit emitFunc) error
}

// A docFormat is a transcript held in one JSON document, recognised and
// read from the parsed document.
type docFormat struct {
	sniff func(name string, doc *fastjson.Value) bool
	read  func(ctx context.Context, in *input, doc *fastjson.Value, emit emitFunc) error
}

// A dirFormat is a transcript spread over the files of one folder (a
// Cline task, an OpenHands conversation).
type dirFormat struct {
	// match reports whether the folder dir, holding the entries names,
	// is one transcript.
	match func(dir string, names map[string]bool) bool
	read  func(ctx context.Context, in *input, emit emitFunc) error
}

// A rawFormat is recognised from a file's first bytes and read its own
// way (Markdown, SQLite).
type rawFormat struct {
	sniff func(name string, head []byte) bool
	read  func(ctx context.Context, in *input, emit emitFunc) error
}

// The formats of each kind, and the agents' roots, in the order of
// formats. They are filled in init rather than initialised from formats:
// readers the table names look them up (sqlitedbRead dispatches to
// sqlitedbReaders), which Go would take for an initialisation cycle.
var (
	lineFormats     []*lineFormat
	docFormats      []*docFormat
	dirFormats      []*dirFormat
	rawFormats      []*rawFormat
	sqlitedbReaders []*sqlitedbReader
	rootFuncs       []func(Env) []Root
)

func init() {
	for _, f := range formats {
		switch {
		case f.line != nil:
			lineFormats = append(lineFormats, f.line)
		case f.doc != nil:
			docFormats = append(docFormats, f.doc)
		case f.dir != nil:
			dirFormats = append(dirFormats, f.dir)
		case f.raw != nil:
			rawFormats = append(rawFormats, f.raw)
		case f.db != nil:
			sqlitedbReaders = append(sqlitedbReaders, f.db)
		}
		if f.roots != nil {
			rootFuncs = append(rootFuncs, f.roots)
		}
	}
}

// input is one file or folder being read.
type input struct {
	path string
	size int64
	opts Options
	p    *fastjson.Parser // owned by the goroutine doing the read
	// related are further files that belong to the same session (Claude
	// Code sub-agent transcripts beside their parent).
	related []string
	// explicit is set when the user named the input (not found by
	// walking a folder).
	explicit bool
	// batch holds the paths (cleaned) of every input of this read, so
	// that a reader can tell whether a related file is read too.
	batch map[string]bool
	// head is the first bytes of the file (decompressed).
	head []byte
	// zstd is set when the file is zstd-compressed.
	zstd    bool
	headBuf []byte // reused between inputs
}

// newInput returns an input for a read, with the buffers a read before it
// released (release): harvest reads each transcript on its own (Read),
// and a new head buffer and JSON parser (whose cache grows to the longest
// line) for each were a sixth of what BenchmarkHarvestRules allocated.
func newInput(opts Options, batch map[string]bool) *input {
	in := &input{opts: opts, batch: batch}
	if b, ok := readBuffers.Get().(*buffers); ok {
		in.headBuf, in.p = b.head, b.p
	}
	return in
}

// release hands the input's buffers on to a later read; the input is not
// read again.
func (in *input) release() {
	readBuffers.Put(&buffers{head: in.headBuf, p: in.p})
	in.headBuf, in.p, in.head = nil, nil, nil
}

// buffers are what an input reuses from one file to the next.
type buffers struct {
	head []byte
	p    *fastjson.Parser
}

var readBuffers sync.Pool // of *buffers

// open opens the input's file, decompressing it when needed.
func (in *input) open() (io.ReadCloser, error) {
	return openFile(in.path, in.zstd)
}

func openFile(path string, compressed bool) (io.ReadCloser, error) {
	f, err := regularfile.Open(path)
	if err != nil {
		return nil, err
	}
	if !compressed {
		return f, nil
	}
	zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("zstd: %w", err)
	}
	return &zstdFile{zr: zr, f: f}, nil
}

type zstdFile struct {
	zr *zstd.Decoder
	f  *os.File
}

func (z *zstdFile) Read(p []byte) (int, error) { return z.zr.Read(p) }
func (z *zstdFile) Close() error {
	z.zr.Close()
	return z.f.Close()
}

// newBuilder starts a session of this input.
func (in *input) builder(agent string) *builder {
	b := newBuilder(agent, in.path, in.opts)
	b.s.Size = in.size
	return b
}

// baseID is the file name without its transcript extensions, the native
// id of last resort.
func baseID(path string) string {
	name := filepath.Base(path)
	for _, ext := range []string{".zst", ".jsonl", ".json", ".traj", ".md"} {
		name = strings.TrimSuffix(name, ext)
	}
	return name
}

const headSize = 64 << 10

var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// readHead reads the first bytes of the input's file into in.head,
// decompressing zstd, and reuses the buffer across inputs.
func (in *input) readHead() error {
	if cap(in.headBuf) < headSize {
		in.headBuf = make([]byte, headSize)
	}
	buf := in.headBuf[:headSize]
	f, err := regularfile.Open(in.path)
	if err != nil {
		return err
	}
	n, err := io.ReadFull(f, buf)
	f.Close()
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return err
	}
	in.head, in.zstd = buf[:n], false
	if !bytes.HasPrefix(in.head, zstdMagic) {
		return nil
	}
	in.zstd = true
	rc, err := openFile(in.path, true)
	if err != nil {
		return err
	}
	defer rc.Close()
	n, err = io.ReadFull(rc, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return fmt.Errorf("zstd: %w", err)
	}
	in.head = buf[:n]
	return nil
}

// maxDocument bounds a whole-document transcript, which must be held in
// memory to be read.
const maxDocument = 512 << 20

// readFile reads every session in one file.
func readFile(ctx context.Context, in *input, emit emitFunc) error {
	if err := in.readHead(); err != nil {
		return err
	}
	head := in.head
	if len(bytes.TrimSpace(head)) == 0 {
		if len(head) == 0 {
			return notTranscript("empty file")
		}
		return notTranscript("only white space")
	}
	name := filepath.Base(in.path)
	for _, f := range rawFormats {
		if f.sniff(name, head) {
			return f.read(ctx, in, emit)
		}
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	trimmed = bytes.TrimPrefix(trimmed, []byte("\ufeff"))
	if len(trimmed) > 0 && trimmed[0] == '{' {
		// A line format is told by its first line alone, so a NUL further
		// on (a line of zeros left by a crash) is one damaged line for
		// the reader to skip, not a binary file.
		v, err := in.firstObject(trimmed)
		if err != nil {
			return err
		}
		if v != nil {
			for _, f := range lineFormats {
				if f.sniff(name, v) {
					return f.read(ctx, in, emit)
				}
			}
		}
	}
	if looksBinary(head) {
		return notTranscript("binary data")
	}
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		return readDocument(ctx, in, name, emit)
	}
	return notTranscript("neither JSON nor a known text format")
}

func (in *input) parser() *fastjson.Parser {
	if in.p == nil {
		in.p = new(fastjson.Parser)
	}
	return in.p
}

// firstObject parses the first line of a file that starts with '{' (the
// head with leading space trimmed), for line formats to sniff. The line
// may be longer than the head (a base64 image) or hold two objects; nil
// when it is no JSON object. A line nested too deeply to be read is an
// error: the file's format cannot be told, and no reader should try.
func (in *input) firstObject(trimmed []byte) (*fastjson.Value, error) {
	line := firstLine(trimmed)
	switch {
	case line != nil:
	case int64(len(in.head)) < in.size || in.zstd:
		line = in.readFirstLine()
	default:
		line = bytes.TrimSpace(trimmed) // a one-line file with no line end
	}
	if len(line) == 0 {
		return nil, nil
	}
	p := in.parser()
	v, err := p.ParseBytes(line)
	if err != nil {
		if tooDeep(line) {
			return nil, fmt.Errorf("first line: %w", errTooDeep)
		}
		// Two objects written on one line: sniff the first.
		var first json.RawMessage
		if json.NewDecoder(bytes.NewReader(line)).Decode(&first) != nil {
			return nil, nil
		}
		if v, err = p.ParseBytes(first); err != nil {
			return nil, nil
		}
	}
	if v.Type() != fastjson.TypeObject {
		return nil, nil
	}
	return v, nil
}

// readFirstLine reads the first non-blank line of the input whole. A line
// longer than maxLine is passed over, as the line readers pass it over
// with a warning: the next line tells the format.
func (in *input) readFirstLine() []byte {
	rc, err := in.open()
	if err != nil {
		return nil
	}
	defer rc.Close()
	lr := newLineReader(rc)
	defer lr.release()
	for {
		line, err := lr.next()
		if err != nil {
			return nil
		}
		if line = bytes.TrimSpace(line); len(line) > 0 && !lr.skipped {
			return append([]byte(nil), line...)
		}
	}
}

// firstLine returns the first line of b when the line is complete (ends
// within b), else nil.
func firstLine(b []byte) []byte {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return nil
	}
	return bytes.TrimSpace(b[:i])
}

// readDocument parses a whole file as one JSON document and hands it to
// the first document format that claims it.
func readDocument(ctx context.Context, in *input, name string, emit emitFunc) error {
	if in.size > maxDocument {
		return notTranscript("a %d MiB JSON document is larger than lore reads whole (%d MiB)", in.size>>20, maxDocument>>20)
	}
	rc, err := in.open()
	if err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(rc, maxDocument+1))
	rc.Close()
	if err != nil {
		return err
	}
	doc, err := in.parser().ParseBytes(data)
	if err != nil {
		if tooDeep(data) {
			return errTooDeep
		}
		// A JSON-lines file whose first line no format claimed, or a
		// damaged document.
		if first := firstLine(data); first != nil && fastjson.ValidateBytes(first) == nil {
			return notTranscript("JSON lines of no known agent (first line has %s)", describeKeys(in.parser(), first))
		}
		return notTranscript("%v", jsonDamage(data))
	}
	for _, f := range docFormats {
		if f.sniff(name, doc) {
			return f.read(ctx, in, doc, emit)
		}
	}
	return notTranscript("JSON of no known agent (%s)", describeValue(doc))
}

// describeKeys names the keys of a JSON object line for an error message.
func describeKeys(p *fastjson.Parser, line []byte) string {
	v, err := p.ParseBytes(line)
	if err != nil {
		return "invalid JSON"
	}
	return describeValue(v)
}

func describeValue(v *fastjson.Value) string {
	switch v.Type() {
	case fastjson.TypeObject:
		var keys []string
		v.GetObject().Visit(func(k []byte, _ *fastjson.Value) {
			if len(keys) < 6 {
				keys = append(keys, string(k))
			}
		})
		if len(keys) == 0 {
			return "an empty object"
		}
		return "keys " + strings.Join(keys, ", ")
	case fastjson.TypeArray:
		a := v.GetArray()
		if len(a) == 0 {
			return "an empty array"
		}
		return fmt.Sprintf("an array of %d, the first with %s", len(a), describeValue(a[0]))
	}
	return "a " + v.Type().String()
}

// looksBinary reports whether head holds bytes no text transcript has.
func looksBinary(head []byte) bool {
	n := len(head)
	if n > 8192 {
		n = 8192
	}
	for _, c := range head[:n] {
		if c == 0 {
			return true
		}
	}
	return false
}

// matchDir returns the directory format that claims dir, or nil.
func matchDir(dir string, names map[string]bool) *dirFormat {
	for _, f := range dirFormats {
		if f.match(dir, names) {
			return f
		}
	}
	return nil
}
