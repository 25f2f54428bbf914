package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// originUnknownField marks the field.Error of a key the lab types do not
// have, so ValidationError prints it as "unknown field" rather than with a
// validation error type.
const originUnknownField = "unknownField"

// checkShape compares a lab file's tree with the lab types before decoding,
// because the strict decoder stops at the first unknown field and names
// fields and types as Go sees them (struct names, "int", "JSON"). It
// returns every unknown field (with a suggestion) and every value of the
// wrong kind, by field path. suggested holds the paths the unknown fields
// were probably meant to be, so the caller can drop "Required" errors that
// repeat the same typo.
func checkShape(data []byte) (errs field.ErrorList, typeErrs bool, suggested map[string]bool, err error) {
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, false, nil, fmt.Errorf("the file is not valid YAML: %s", yamlMessage(err))
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber() // keep 85899345920 and 2.5 as written, for whole-number checks
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, false, nil, fmt.Errorf("the file is not valid YAML: %w", err)
	}
	if _, ok := tree.(map[string]any); !ok && tree != nil {
		return nil, false, nil, fmt.Errorf("the lab file must be a mapping of fields (%s), not %s", strings.Join(fieldNames(reflect.TypeFor[Lab]()), ", "), describeValue(tree))
	}
	c := shapeChecker{suggested: map[string]bool{}}
	c.check(nil, tree, reflect.TypeFor[Lab](), "the lab")
	return c.errs, c.typeErrs, c.suggested, nil
}

type shapeChecker struct {
	errs      field.ErrorList
	typeErrs  bool
	suggested map[string]bool
}

// check walks v against t. noun names a value of type t for a reader ("a
// tenant"); p is nil at the root.
func (c *shapeChecker) check(p *field.Path, v any, t reflect.Type, noun string) {
	if v == nil {
		return // null leaves the zero value, as the decoder does
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			c.wrongType(p, v, "a mapping of fields ("+strings.Join(fieldNames(t), ", ")+")")
			return
		}
		fields := fieldsOf(t)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			kp := child(p, k)
			f, known := fields[k]
			if !known {
				c.unknown(p, kp, k, t, noun)
				continue
			}
			c.check(kp, m[k], f.Type, nounOf(k, f.Type))
		}
	case reflect.Slice:
		list, ok := v.([]any)
		if !ok {
			c.wrongType(p, v, "a list of "+plural(nounOf("", t.Elem())))
			return
		}
		for i, e := range list {
			c.check(p.Index(i), e, t.Elem(), nounOf("", t.Elem()))
		}
	case reflect.String:
		// The decoder turns any scalar into text for a text field (name: 123
		// is "123"); only a list or a mapping cannot be.
		switch v.(type) {
		case map[string]any, []any:
			c.wrongType(p, v, "text, e.g. "+quoteExample(p))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(json.Number)
		if !ok {
			c.wrongType(p, v, "a whole number")
			return
		}
		if _, err := strconv.ParseInt(n.String(), 10, t.Bits()); err != nil {
			if _, ferr := strconv.ParseFloat(n.String(), 64); ferr == nil && !strings.ContainsAny(n.String(), ".eE") {
				c.wrongType(p, v, fmt.Sprintf("a whole number that fits in %d bits: this one is far too large", t.Bits()))
				return
			}
			c.wrongType(p, v, "a whole number (no fraction or exponent)")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			c.wrongType(p, v, "true or false")
		}
	}
}

func (c *shapeChecker) wrongType(p *field.Path, v any, want string) {
	c.typeErrs = true
	switch v.(type) {
	case json.Number, string, bool:
		// json.Number prints as written (2.5, 85899345920), text quoted.
		c.errs = append(c.errs, field.TypeInvalid(p, v, "must be "+want))
	default:
		c.errs = append(c.errs, field.TypeInvalid(p, field.OmitValueType{}, "must be "+want+", not "+describeValue(v)))
	}
}

// unknown records key k under the value at p (of type t), with the nearest
// known field at that level, else where k belongs if it is a field of some
// other part of the lab, and always the fields that are allowed here.
func (c *shapeChecker) unknown(p, kp *field.Path, k string, t reflect.Type, noun string) {
	names := fieldNames(t)
	msg := fmt.Sprintf("unknown field %q", k)
	if s := nearest(k, names); s != "" {
		msg += fmt.Sprintf(": did you mean %q?", s)
		c.suggested[child(p, s).String()] = true
	} else if homes := fieldHomes(k); len(homes) > 0 {
		msg += fmt.Sprintf(": it belongs at %s, not in %s", strings.Join(homes, " or "), noun)
	}
	msg += fmt.Sprintf(" (%s has %s)", noun, strings.Join(names, ", "))
	c.errs = append(c.errs, &field.Error{Type: field.ErrorTypeForbidden, Field: kp.String(), Detail: msg, Origin: originUnknownField})
}

func child(p *field.Path, name string) *field.Path {
	if p == nil {
		return field.NewPath(name)
	}
	return p.Child(name)
}

// fieldsOf maps a struct's file names (json tags) to its fields.
func fieldsOf(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name := strings.Split(f.Tag.Get("json"), ",")[0]; name != "" && name != "-" {
			out[name] = f
		}
	}
	return out
}

// fieldNames lists a struct's file names in declaration order.
func fieldNames(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if name := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]; name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// listNouns names the elements of the lab's lists for a reader.
var listNouns = map[reflect.Type]string{
	reflect.TypeFor[Lab]():      "the lab",
	reflect.TypeFor[Tenant]():   "a tenant",
	reflect.TypeFor[Worker]():   "a worker",
	reflect.TypeFor[GPUGroup](): "a GPU group",
}

// nounOf names a value of type t reached through field name.
func nounOf(name string, t reflect.Type) string {
	if n, ok := listNouns[t]; ok {
		return n
	}
	if name == "" {
		return "an item"
	}
	return name
}

func plural(noun string) string {
	return strings.TrimPrefix(strings.TrimPrefix(noun, "a "), "an ") + "s"
}

// fieldHomes lists the reference paths (as in README's lab-file reference,
// e.g. "tenants[].workers[].gpus") of every field named k.
func fieldHomes(k string) []string {
	var out []string
	var walk func(path string, t reflect.Type)
	walk = func(path string, t reflect.Type) {
		for _, name := range fieldNames(t) {
			f := fieldsOf(t)[name]
			sub := strings.TrimPrefix(path+"."+name, ".")
			if name == k {
				out = append(out, sub)
			}
			switch ft := f.Type; {
			case ft.Kind() == reflect.Struct:
				walk(sub, ft)
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
				walk(sub+"[]", ft.Elem())
			}
		}
	}
	walk("", reflect.TypeFor[Lab]())
	return out
}

// nearest is the known name closest to k by edit distance, ignoring case,
// when it is close enough to be a typo (at most a third of the name, and at
// least one edit, apart); "" otherwise.
func nearest(k string, known []string) string {
	best, bestD := "", -1
	for _, n := range known {
		d := editDistance(strings.ToLower(k), strings.ToLower(n))
		if bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	if bestD < 0 || bestD > max(1, min(len(k), len(best))/3) {
		return ""
	}
	return best
}

// editDistance is the optimal-string-alignment distance of two strings, by
// rune: insertions, deletions, substitutions and swaps of neighbours
// ("prots" for "ports") each cost one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

func describeValue(v any) string {
	switch v.(type) {
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		return "text"
	case json.Number:
		return "a number"
	case bool:
		return "true/false"
	}
	return "nothing"
}

// quoteExample is an example text for the field at p.
func quoteExample(p *field.Path) string {
	if p == nil {
		return `"x"`
	}
	s := p.String()
	return fmt.Sprintf("%s: \"...\"", s[strings.LastIndexAny(s, ".]")+1:])
}

// yamlMessage is the YAML parser's message on one line, without its
// package prefix: "line 3: key "name" already set in map".
func yamlMessage(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	s = strings.TrimPrefix(s, "unmarshal errors:\n")
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}
