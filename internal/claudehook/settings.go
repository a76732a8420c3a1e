package claudehook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// settingsDoc is Claude Code's settings, parsed only as deep as lore's
// hooks need, so that everything else is written back as it was read.
type settingsDoc struct {
	top *jsonObject
	bom bool
}

// parseSettings reads a settings file; an empty one is an empty object.
func parseSettings(data []byte) (*settingsDoc, error) {
	doc := &settingsDoc{}
	if b, ok := bytes.CutPrefix(data, []byte("\xef\xbb\xbf")); ok {
		data, doc.bom = b, true
	}
	if len(bytes.TrimSpace(data)) == 0 {
		doc.top = newJSONObject()
		return doc, nil
	}
	if err := checkJSON(data); err != nil {
		return nil, err
	}
	top, err := parseJSONObject(data)
	if err != nil {
		return nil, errors.New("the settings are not a JSON object")
	}
	doc.top = top
	return doc, nil
}

// checkJSON says where data stops being JSON, as line and column.
func checkJSON(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	p := int(se.Offset)
	if p > 0 {
		p-- // Offset counts the byte that went wrong
	}
	p = min(p, len(data))
	line := 1 + bytes.Count(data[:p], []byte("\n"))
	col := p - bytes.LastIndexByte(data[:p], '\n')
	return fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, se)
}

// marshal writes the settings as Claude Code does: two-space indent, and a
// final newline when the old file had one (or there was none).
func (d *settingsDoc) marshal(old []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, d.top.compact(), "", "  "); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(old)) == 0 || bytes.HasSuffix(old, []byte("\n")) {
		buf.WriteByte('\n')
	}
	if d.bom {
		return append([]byte("\xef\xbb\xbf"), buf.Bytes()...), nil
	}
	return buf.Bytes(), nil
}

// hookRef is where one of lore's hooks sits: the group in the event's
// list, and the hook in the group's "hooks".
type hookRef struct {
	group, hook int
	command     string
}

// eventHooks is one event's list of matcher groups.
type eventHooks struct {
	groups []json.RawMessage
}

// hooksObject returns the "hooks" object; nil when there is none.
func (d *settingsDoc) hooksObject() (*jsonObject, error) {
	raw, ok := d.top.get("hooks")
	if !ok || isNull(raw) {
		return nil, nil
	}
	h, err := parseJSONObject(raw)
	if err != nil {
		return nil, errors.New(`"hooks" is not a JSON object`)
	}
	return h, nil
}

func (d *settingsDoc) event(hooks *jsonObject, name string) (*eventHooks, error) {
	raw, ok := hooks.get(name)
	if !ok || isNull(raw) {
		return &eventHooks{}, nil
	}
	var groups []json.RawMessage
	if err := json.Unmarshal(raw, &groups); err != nil {
		return nil, fmt.Errorf(`"hooks.%s" is not a JSON array`, name)
	}
	return &eventHooks{groups: groups}, nil
}

// find lists the hooks in e that run lore with args. Groups and hooks of
// a shape lore does not know are left alone.
func (e *eventHooks) find(args string) []hookRef {
	var refs []hookRef
	for gi, g := range e.groups {
		for hi, h := range groupHooks(g) {
			var hook struct {
				Type    string `json:"type"`
				Command string `json:"command"`
			}
			if json.Unmarshal(h, &hook) == nil && hook.Type == "command" && isLoreHook(hook.Command, args) {
				refs = append(refs, hookRef{gi, hi, hook.Command})
			}
		}
	}
	return refs
}

// groupHooks is a matcher group's "hooks" list; nil when it has none.
func groupHooks(group json.RawMessage) []json.RawMessage {
	var g struct {
		Hooks []json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(group, &g) != nil {
		return nil
	}
	return g.Hooks
}

// remove deletes the hooks refs points at, and a group left with no hooks
// by that.
func (e *eventHooks) remove(refs []hookRef) {
	drop := map[int]map[int]bool{}
	for _, r := range refs {
		if drop[r.group] == nil {
			drop[r.group] = map[int]bool{}
		}
		drop[r.group][r.hook] = true
	}
	var groups []json.RawMessage
	for gi, g := range e.groups {
		if drop[gi] == nil {
			groups = append(groups, g)
			continue
		}
		var kept []json.RawMessage
		for hi, h := range groupHooks(g) {
			if !drop[gi][hi] {
				kept = append(kept, h)
			}
		}
		if len(kept) == 0 {
			continue
		}
		obj, _ := parseJSONObject(g) // groupHooks parsed it
		obj.set("hooks", rawArray(kept))
		groups = append(groups, obj.compact())
	}
	e.groups = groups
}

// install adds lore's hooks, or points lore's existing ones at commands.
func (d *settingsDoc) install(lore Hooks, commands map[string]string) ([]Change, error) {
	hooks, err := d.hooksObject()
	if err != nil {
		return nil, err
	}
	if hooks == nil {
		hooks = newJSONObject()
	}
	var changes []Change
	for _, h := range lore {
		ev, err := d.event(hooks, h.Event)
		if err != nil {
			return nil, err
		}
		want := commands[h.Event]
		c := Change{Event: h.Event, Command: want}
		refs := ev.find(h.Args)
		switch {
		case len(refs) == 0:
			c.Action = Added
			entry := newJSONObject()
			entry.set("type", jsonValue("command"))
			entry.set("command", jsonValue(want))
			entry.set("timeout", jsonValue(h.Timeout))
			group := newJSONObject()
			if h.Matcher != nil {
				group.set("matcher", jsonValue(*h.Matcher))
			}
			group.set("hooks", rawArray([]json.RawMessage{entry.compact()}))
			ev.groups = append(ev.groups, group.compact())
		case len(refs) == 1 && refs[0].command == want:
			c.Action = AlreadyThere
		default:
			// The first keeps its place, matcher and timeout; the others go.
			c.Action = Replaced
			for _, r := range refs {
				c.Previous = append(c.Previous, r.command)
			}
			first := refs[0]
			group, _ := parseJSONObject(ev.groups[first.group])
			list := groupHooks(ev.groups[first.group])
			entry, _ := parseJSONObject(list[first.hook])
			entry.set("command", jsonValue(want))
			if _, ok := entry.get("timeout"); !ok {
				entry.set("timeout", jsonValue(h.Timeout))
			}
			list[first.hook] = entry.compact()
			group.set("hooks", rawArray(list))
			ev.groups[first.group] = group.compact()
			ev.remove(refs[1:])
		}
		if c.Action != AlreadyThere {
			hooks.set(h.Event, rawArray(ev.groups))
		}
		changes = append(changes, c)
	}
	d.top.set("hooks", hooks.compact())
	return changes, nil
}

// uninstall removes lore's hooks, and what only they kept from being empty.
func (d *settingsDoc) uninstall(lore Hooks) ([]Change, error) {
	hooks, err := d.hooksObject()
	if err != nil {
		return nil, err
	}
	var changes []Change
	removedAny := false
	for _, h := range lore {
		c := Change{Event: h.Event, Action: NotThere}
		if hooks == nil {
			changes = append(changes, c)
			continue
		}
		ev, err := d.event(hooks, h.Event)
		if err != nil {
			return nil, err
		}
		refs := ev.find(h.Args)
		if len(refs) > 0 {
			c.Action = Removed
			for _, r := range refs {
				c.Previous = append(c.Previous, r.command)
			}
			ev.remove(refs)
			if len(ev.groups) == 0 {
				hooks.delete(h.Event)
			} else {
				hooks.set(h.Event, rawArray(ev.groups))
			}
			removedAny = true
		}
		changes = append(changes, c)
	}
	if removedAny {
		if len(hooks.keys) == 0 {
			d.top.delete("hooks")
		} else {
			d.top.set("hooks", hooks.compact())
		}
	}
	return changes, nil
}

// jsonObject is a JSON object that keeps its keys in order and its values
// as they were written.
type jsonObject struct {
	keys []string
	vals map[string]json.RawMessage
}

func newJSONObject() *jsonObject { return &jsonObject{vals: map[string]json.RawMessage{}} }

// parseJSONObject reads one JSON object. A key given twice keeps its first
// place and its last value, as encoding/json would read it.
func parseJSONObject(data []byte) (*jsonObject, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := newJSONObject()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *jsonObject) get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// set replaces k's value in its place, or adds k at the end.
func (o *jsonObject) set(k string, v json.RawMessage) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *jsonObject) delete(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// compact writes the object on one line, values as they were read.
func (o *jsonObject) compact() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonValue(k))
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// jsonValue encodes v without HTML escaping, which Claude Code does not do.
func jsonValue(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only strings and numbers are encoded here
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func rawArray(items []json.RawMessage) json.RawMessage {
	if len(items) == 0 {
		return json.RawMessage("[]")
	}
	b := []byte("[")
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, ']')
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }
