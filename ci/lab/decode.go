package lab

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// originUnknownField marks the field.Error of a key the lab types do not
// have, so validationError prints it as "unknown field" rather than with a
// validation error type.
const originUnknownField = "unknownField"

// shape is what checkShape found in a lab file's tree.
type shape struct {
	// errs are every unknown field (with a suggestion) and every value of
	// the wrong kind, by field path.
	errs field.ErrorList
	// clean is the tree without those fields and values: it decodes
	// strictly, so the rest of the file is validated in the same pass.
	clean any
	// dropped holds the paths of values of the wrong kind: a validation
	// error at or under one is a consequence (splitCount: "ten" is not
	// also "splitCount: must be at least 1").
	dropped map[string]bool
	// suggested holds the paths the unknown fields were probably meant to
	// be, so the caller can drop "Required" errors that repeat the typo.
	suggested map[string]bool
}

// checkShape compares a lab file's tree (as encoding/json decodes it, with
// json.Number) with the lab types before decoding, because the strict
// decoder stops at the first unknown field and names fields and types as Go
// sees them (struct names, "int", "JSON").
func checkShape(tree any) shape {
	c := shapeChecker{shape: shape{dropped: map[string]bool{}, suggested: map[string]bool{}}}
	c.clean, _ = c.check(nil, tree, reflect.TypeFor[Lab](), "the lab")
	return c.shape
}

// consequence says whether a validation error only repeats a problem the
// shape check already reported.
func (s shape) consequence(e *field.Error) bool {
	if e.Type == field.ErrorTypeRequired && s.suggested[e.Field] {
		return true // "tenants[0].workers: Required" repeats "tenants[0].workrs: did you mean workers?"
	}
	for p := e.Field; p != ""; p = parentPath(p) {
		if s.dropped[p] {
			return true
		}
	}
	return false
}

// parentPath is "tenants[0]" for "tenants[0].name", "tenants" for
// "tenants[0]", "" at the top.
func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

type shapeChecker struct{ shape }

// check walks v against t and returns v without unknown fields and values
// of the wrong kind; ok is false when v itself is of the wrong kind. noun
// names a value of type t for a reader ("a tenant"); p is nil at the root.
func (c *shapeChecker) check(p *field.Path, v any, t reflect.Type, noun string) (clean any, ok bool) {
	if v == nil {
		return nil, true // null leaves the zero value, as the decoder does
	}
	switch t.Kind() {
	case reflect.Struct:
		return c.checkStruct(p, v, t, noun)
	case reflect.Slice:
		return c.checkSlice(p, v, t)
	case reflect.String:
		return c.checkString(p, v)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return c.checkInt(p, v, t)
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return c.wrongType(p, v, "true or false")
		}
		return v, true
	}
	return v, true
}

// checkStruct checks a mapping against struct type t, key by key in
// sorted order: an unknown key is reported and left out, as is a value of
// the wrong kind.
func (c *shapeChecker) checkStruct(p *field.Path, v any, t reflect.Type, noun string) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return c.wrongType(p, v, "a mapping of fields ("+strings.Join(fieldNames(t), ", ")+")")
	}
	fields := fieldsOf(t)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]any, len(m))
	for _, k := range keys {
		kp := child(p, k)
		f, known := fields[k]
		if !known {
			c.unknown(p, kp, k, t, noun)
			continue
		}
		if cv, ok := c.check(kp, m[k], f.Type, nounOf(k, f.Type)); ok {
			out[k] = cv
		}
	}
	return out, true
}

// checkSlice checks a list against slice type t, element by element.
func (c *shapeChecker) checkSlice(p *field.Path, v any, t reflect.Type) (any, bool) {
	list, ok := v.([]any)
	if !ok {
		return c.wrongType(p, v, "a list of "+pluralNoun(nounOf("", t.Elem())))
	}
	out := make([]any, len(list))
	for i, e := range list {
		// A bad element stays as null so the ones after it keep
		// their index.
		out[i], _ = c.check(p.Index(i), e, t.Elem(), nounOf("", t.Elem()))
	}
	return out, true
}

// checkString checks a value for a text field.
func (c *shapeChecker) checkString(p *field.Path, v any) (any, bool) {
	// The decoder turns any scalar into text for a text field (name: 123
	// is "123"); only a list or a mapping cannot be.
	switch s := v.(type) {
	case map[string]any, []any:
		return c.wrongType(p, v, "text, e.g. "+quoteExample(p))
	case json.Number:
		return s.String(), true
	case bool:
		return strconv.FormatBool(s), true
	}
	return v, true
}

// checkInt checks a value for an integer field of type t: a whole number
// that fits in its bits.
func (c *shapeChecker) checkInt(p *field.Path, v any, t reflect.Type) (any, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return c.wrongType(p, v, "a whole number")
	}
	if _, err := strconv.ParseInt(n.String(), 10, t.Bits()); err != nil {
		if _, ferr := strconv.ParseFloat(n.String(), 64); ferr == nil && !strings.ContainsAny(n.String(), ".eE") {
			return c.wrongType(p, v, fmt.Sprintf("a whole number that fits in %d bits: this one is far too large", t.Bits()))
		}
		return c.wrongType(p, v, "a whole number (no fraction or exponent)")
	}
	return v, true
}

func (c *shapeChecker) wrongType(p *field.Path, v any, want string) (any, bool) {
	c.dropped[p.String()] = true
	switch v.(type) {
	case json.Number, string, bool:
		// json.Number prints as written (2.5, 85899345920), text quoted.
		c.errs = append(c.errs, field.TypeInvalid(p, v, "must be "+want))
	default:
		c.errs = append(c.errs, field.TypeInvalid(p, field.OmitValueType{}, "must be "+want+", not "+describeValue(v)))
	}
	return nil, false
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

func pluralNoun(noun string) string {
	return strings.TrimPrefix(strings.TrimPrefix(noun, "a "), "an ") + "s"
}

// fieldHomes lists the reference paths (as in README's lab-file reference,
// e.g. "tenants[].workers[].gpus") of every field named k.
func fieldHomes(k string) []string { return fieldHomeIndex()[k] }

// fieldHomeIndex maps every field name to its reference paths, built once:
// a file of a hundred thousand unknown keys asks for each.
var fieldHomeIndex = sync.OnceValue(func() map[string][]string {
	out := map[string][]string{}
	var walk func(path string, t reflect.Type)
	walk = func(path string, t reflect.Type) {
		fields := fieldsOf(t)
		for _, name := range fieldNames(t) {
			sub := strings.TrimPrefix(path+"."+name, ".")
			out[name] = append(out[name], sub)
			switch ft := fields[name].Type; {
			case ft.Kind() == reflect.Struct:
				walk(sub, ft)
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
				walk(sub+"[]", ft.Elem())
			}
		}
	}
	walk("", reflect.TypeFor[Lab]())
	return out
})

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
