package lab

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"
)

// format is the syntax of a lab file. Both read into one tree (mappings,
// lists, json.Number, text, true/false, null) that the shape check walks;
// each keeps its own rules and its own words in messages.
type format int

const (
	// formatYAML is the default; a JSON document is also valid YAML.
	formatYAML format = iota
	// formatJSON is read by JSON's rules: no trailing commas, no comments, and
	// (as RFC 8259 §4 advises and YAML requires) no key twice in an object.
	formatJSON
)

func (f format) String() string {
	if f == formatJSON {
		return "JSON"
	}
	return "YAML"
}

// formatOf is the format of a lab file by its name: ".json" is JSON,
// anything else YAML.
func formatOf(path string) format {
	if strings.HasSuffix(strings.ToLower(path), ".json") {
		return formatJSON
	}
	return formatYAML
}

// tree reads data into the generic tree.
func (f format) tree(data []byte) (any, error) {
	if f == formatJSON {
		return jsonTree(data)
	}
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("the file is not valid YAML: %s", yamlMessage(err))
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber() // keep 85899345920 and 2.5 as written, for whole-number checks
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("the file is not valid YAML: %w", err)
	}
	return tree, nil
}

// yamlMessage is the YAML parser's message on one line, without its
// package prefix: "line 3: key "name" already set in map".
func yamlMessage(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	s = strings.TrimPrefix(s, "unmarshal errors:\n")
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// maxJSONDepth bounds nesting: a lab nests 7 deep (tenants, a tenant,
// workers, a worker, gpus, a group, a field), and anything deeper is
// reported by the shape check at its top anyway; the bound keeps a file of
// a million '[' from recursing a million times.
const maxJSONDepth = 32

// jsonTree reads a JSON document token by token, which catches what
// json.Unmarshal lets through: a key given twice in one object.
func jsonTree(data []byte) (any, error) {
	r := jsonReader{dec: json.NewDecoder(bytes.NewReader(data)), data: data}
	r.dec.UseNumber()
	v, err := r.value(0)
	if err != nil {
		return nil, err
	}
	if tok, err := r.dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = fmt.Errorf("%v after the end of the top-level value", tok)
		}
		return nil, r.fail(err)
	}
	return v, nil
}

type jsonReader struct {
	dec  *json.Decoder
	data []byte
}

func (r jsonReader) value(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, r.fail(fmt.Errorf("values nested more than %d deep; a lab file nests at most 7", maxJSONDepth))
	}
	tok, err := r.dec.Token()
	if err != nil {
		return nil, r.fail(err)
	}
	switch tok {
	case json.Delim('{'):
		m := map[string]any{}
		for r.dec.More() {
			kt, err := r.dec.Token()
			if err != nil {
				return nil, r.fail(err)
			}
			k, _ := kt.(string) // inside an object the decoder yields only string keys
			if _, dup := m[k]; dup {
				return nil, r.failAt(keyStart(r.data, r.dec.InputOffset()), fmt.Errorf("key %q appears twice in one object", k))
			}
			if m[k], err = r.value(depth + 1); err != nil {
				return nil, err
			}
		}
		_, err := r.dec.Token() // '}'
		return m, r.fail(err)
	case json.Delim('['):
		list := []any{}
		for r.dec.More() {
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := r.dec.Token() // ']'
		return list, r.fail(err)
	}
	return tok, nil
}

// fail says where in the file err happened, "line 3, column 7", from the
// syntax error's offset or else the decoder's position; nil stays nil.
func (r jsonReader) fail(err error) error {
	if err == nil {
		return nil
	}
	off := r.dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
		// The scanner counts the bad character in its offset, the
		// decoder's token checks do not: point at the character.
		if c, ok := strings.CutPrefix(se.Error(), "invalid character '"); ok && off > 0 && off <= int64(len(r.data)) &&
			strings.HasPrefix(c, string(r.data[off-1])+"'") {
			off--
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		off, err = int64(len(r.data)), errors.New("the file ends before the value does")
	}
	return r.failAt(off, err)
}

// keyStart is the offset of the opening quote of the key that ends just
// before end.
func keyStart(data []byte, end int64) int64 {
	for i := end - 2; i >= 0; i-- {
		if data[i] == '"' && (i == 0 || data[i-1] != '\\') {
			return i
		}
	}
	return end
}

// failAt says err happened at byte off: "line 3, column 7" (1-based).
func (r jsonReader) failAt(off int64, err error) error {
	off = min(max(off, 0), int64(len(r.data)))
	before := r.data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Errorf("the file is not valid JSON: line %d, column %d: %s", line, col, strings.TrimPrefix(err.Error(), "json: "))
}
