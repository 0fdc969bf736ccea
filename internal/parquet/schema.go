package parquet

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Physical types, repetitions, converted types and logical types, as parquet.thrift numbers
// them.
const (
	typeInt32     = 1
	typeInt64     = 2
	typeDouble    = 5
	typeByteArray = 6

	required = 0
	optional = 1
	repeated = 2

	convertedUTF8      = 0
	convertedList      = 3
	convertedTimestamp = 9 // TIMESTAMP_MILLIS
)

// logical is the logical type of a schema element: none, STRING, LIST or TIMESTAMP(MILLIS, UTC).
type logical int

const (
	logicalNone logical = iota
	logicalString
	logicalList
	logicalTimestampMillis
)

// element is one SchemaElement of the footer: a group (typ 0 and children) or a leaf.
type element struct {
	name       string
	typ        int32 // 0 for a group
	repetition int32
	children   int32
	converted  int32 // -1: none
	logical    logical
}

// column is one leaf of the schema: where its values are in a row and its levels.
type column struct {
	path   []string
	typ    int32
	list   int // the row's field holding the list of structs, or -1
	field  int // the field of the row (of the list's element when list >= 0)
	isTime bool
	maxDef uint8
	maxRep uint8
}

// schema is a row type's Parquet schema: the elements in depth-first order, the leaves in
// the same order.
type schema struct {
	elements []element
	columns  []column
}

// schemaOf builds the schema of a struct type. Its exported fields are the columns, each
// named by its `parquet:"NAME"` tag: int32, int64, float64, string (STRING) and time.Time
// (TIMESTAMP in milliseconds, UTC) are required columns, a pointer to one of them an optional
// column (nil is null), and a slice of such structs a LIST of them (3-level: the list
// required, its elements required).
func schemaOf(t reflect.Type) (schema, error) {
	if t.Kind() != reflect.Struct {
		return schema{}, fmt.Errorf("parquet: rows of %s, not of a struct", t)
	}
	s := schema{elements: []element{{name: "schema", repetition: -1, children: int32(t.NumField()), converted: -1}}}
	for i := range t.NumField() {
		f := t.Field(i)
		name, err := fieldName(f)
		if err != nil {
			return schema{}, err
		}
		if f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct {
			if err := s.addList(name, i, f.Type.Elem()); err != nil {
				return schema{}, err
			}
			continue
		}
		e, c, err := leafOf(name, f.Type)
		if err != nil {
			return schema{}, err
		}
		c.list, c.field = -1, i
		s.elements = append(s.elements, e)
		s.columns = append(s.columns, c)
	}
	return s, nil
}

// addList adds a LIST of structs: `required group NAME (LIST) { repeated group list {
// required group element { FIELDS } } }`, each leaf one repetition level and one definition
// level (the list's) deep, one more when it is optional.
func (s *schema) addList(name string, field int, t reflect.Type) error {
	s.elements = append(s.elements,
		element{name: name, repetition: required, children: 1, converted: convertedList, logical: logicalList},
		element{name: "list", repetition: repeated, children: 1, converted: -1},
		element{name: "element", repetition: required, children: int32(t.NumField()), converted: -1})
	for j := range t.NumField() {
		f := t.Field(j)
		leaf, err := fieldName(f)
		if err != nil {
			return err
		}
		if f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct {
			return fmt.Errorf("parquet: field %s.%s: a list in a list", name, f.Name)
		}
		e, c, err := leafOf(leaf, f.Type)
		if err != nil {
			return err
		}
		c.path = []string{name, "list", "element", leaf}
		c.list, c.field = field, j
		c.maxDef++
		c.maxRep = 1
		s.elements = append(s.elements, e)
		s.columns = append(s.columns, c)
	}
	return nil
}

// fieldName is a field's column name: its parquet tag, which holds the name alone.
func fieldName(f reflect.StructField) (string, error) {
	name := f.Tag.Get("parquet")
	if name == "" || strings.Contains(name, ",") || !f.IsExported() {
		return "", fmt.Errorf("parquet: field %s: needs a tag `parquet:\"NAME\"` and nothing else", f.Name)
	}
	return name, nil
}

// leafOf is the schema element and the column of a leaf field of type t.
func leafOf(name string, t reflect.Type) (element, column, error) {
	e := element{name: name, repetition: required, converted: -1}
	c := column{path: []string{name}}
	if t.Kind() == reflect.Pointer {
		e.repetition = optional
		c.maxDef = 1
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[time.Time]():
		e.typ, e.converted, e.logical = typeInt64, convertedTimestamp, logicalTimestampMillis
		c.isTime = true
	case t.Kind() == reflect.Int32:
		e.typ = typeInt32
	case t.Kind() == reflect.Int64:
		e.typ = typeInt64
	case t.Kind() == reflect.Float64:
		e.typ = typeDouble
	case t.Kind() == reflect.String:
		e.typ, e.converted, e.logical = typeByteArray, convertedUTF8, logicalString
	default:
		return e, c, fmt.Errorf("parquet: column %s: type %s is not supported", name, t)
	}
	c.typ = e.typ
	return e, c, nil
}
