package cluster

import (
	"fmt"
	"reflect"
	"strings"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A PostgresCluster's settings are its class's, overridden by its own
// (docs/guides/classes.md). One rule merges them, read from the types by
// reflection, so a new ClusterSettings field is merged the day it is
// added, with no edit here (docs/adr/0008-settings-merge-by-one-rule.md):
//
//   - a field of a settings struct of ours (storage, storage.autoGrow,
//     connectionPooler, backup, monitoring, and any new one) merges field
//     by field: the cluster's nil keeps the class's, the class's nil
//     takes the cluster's;
//   - any other value (a scalar, a pointer to one, a Kubernetes type such
//     as a Quantity or a Duration) is replaced by the cluster's when the
//     cluster sets it (a pointer not nil, a scalar not zero);
//   - a map merges key by key, the cluster's entries winning;
//   - a list has no default: appending and replacing are both plausible,
//     so each list says which in settingsMergeExceptions, and the plan
//     below refuses one that does not.
//
// Reflection, not generated code: the rule stays data in this file, not
// a generator in hack/tools, another generated file and a verify step.
// It costs microseconds once per pass (BenchmarkMergeSettings: ≈6 µs and
// 54 allocations, the hand merge it replaced ≈5 µs and 30). A new field
// still needs `make generate` for its DeepCopy, which the merge relies on
// to share nothing with its inputs. TestEverySettingMerges sets each
// leaf of the settings in the class, the cluster and both, and checks the
// result against these rules, so a new field is tested with no test edit.

// mergeRule is how the cluster's value of one field meets its class's.
type mergeRule int

const (
	// mergeFields merges a struct field by field (the default for our
	// settings structs).
	mergeFields mergeRule = iota + 1
	// mergeReplace takes the cluster's value, whole, when it is set (the
	// default for everything but maps, lists and our structs).
	mergeReplace
	// mergeKeys merges a map key by key (the default for maps).
	mergeKeys
	// mergeKeysAnyCase merges a map[string]string key by key, and a
	// cluster's key also replaces the class's keys that differ from it in
	// case only.
	mergeKeysAnyCase
	// mergeAppend puts the cluster's items after the class's.
	mergeAppend
)

func (r mergeRule) String() string {
	return [...]string{"?", "field by field", "replaced when set", "key by key", "key by key in any case", "appended"}[r]
}

// settingsMergeExceptions are the fields, by their path in the spec, that
// do not merge as their type does by default, and every list: the one
// place a field whose documented merge differs is declared.
var settingsMergeExceptions = map[string]mergeRule{
	// Postgres matches parameter names in any case: a cluster's WORK_MEM
	// replaces its class's work_mem instead of sending CNPG both, one of
	// which Postgres would ignore.
	"postgresqlConfig": mergeKeysAnyCase,
	// A cluster's lines follow its class's.
	"pgHBA": mergeAppend,
	// Bucket, endpoint, its CA and credentials (whichever form) go
	// together: a cluster's store never borrows its class's credentials.
	"backup.objectStore": mergeReplace,
	// Requests and limits go together (a Kubernetes type: whole anyway).
	"resources": mergeReplace,
	// A catalog's kind and name go together: a cluster's name never
	// pairs with its class's kind. (A cluster's imageName or imageCatalog
	// also replaces its class's other one: imageChoice, image_catalog.go.)
	"imageCatalog": mergeReplace,
	// Mode, standbys and dataDurability go together: a cluster that asks
	// Asynchronous never keeps its class's standbys.
	"durability": mergeReplace,
	// A cluster's tolerations and spread constraints replace its class's:
	// appending could only widen where a cluster may run, never narrow it.
	"placement.tolerations":               mergeReplace,
	"placement.topologySpreadConstraints": mergeReplace,
	// The same for the poolers' placement.
	"connectionPooler.placement.tolerations":               mergeReplace,
	"connectionPooler.placement.topologySpreadConstraints": mergeReplace,
	// Admission goes whole: a cluster's tenants never widen its class's
	// by a list the class did not write (ADR-0016).
	"tenants": mergeReplace,
}

// mergePlan is the rule of each field of a struct, in field order.
type mergePlan []fieldMerge

type fieldMerge struct {
	index int
	path  string
	rule  mergeRule
	sub   mergePlan // mergeFields: the struct's own plan
}

// settingsPlan is ClusterSettings' plan. The types are fixed when the
// operator is compiled, so a field the rules cannot merge panics here, in
// every unit test of this package, naming the field.
var settingsPlan = func() mergePlan {
	p, err := planMerge(reflect.TypeFor[pgv1.ClusterSettings](), settingsMergeExceptions)
	if err != nil {
		panic(err)
	}
	return p
}()

// planMerge reads the rule of every field of struct type t: structs
// declared in t's package are ours, and merge field by field unless
// exceptions (keyed by the fields' JSON paths) say otherwise. Every
// exception must name a field and fit its kind.
func planMerge(t reflect.Type, exceptions map[string]mergeRule) (mergePlan, error) {
	used := map[string]bool{}
	p, err := planStruct(t, "", t.PkgPath(), exceptions, used)
	if err != nil {
		return nil, err
	}
	for path := range exceptions {
		if !used[path] {
			return nil, fmt.Errorf("settings merge: the exception %q names no field of %s", path, t.Name())
		}
	}
	return p, nil
}

func planStruct(t reflect.Type, prefix, ours string, exceptions map[string]mergeRule, used map[string]bool) (mergePlan, error) {
	var p mergePlan
	for i := range t.NumField() {
		f := t.Field(i)
		path := joinPath(prefix, jsonName(f))
		if !f.IsExported() {
			return nil, fmt.Errorf("settings merge: %s.%s is unexported: the merge cannot set it", t.Name(), f.Name)
		}
		rule, declared := exceptions[path]
		if declared {
			used[path] = true
		}
		if !declared {
			rule = defaultRule(f.Type, ours)
		}
		if err := ruleFits(rule, f.Type, ours); err != nil {
			return nil, fmt.Errorf("settings merge: %s (%s): %w (settingsMergeExceptions, settings_merge.go)", path, f.Type, err)
		}
		fm := fieldMerge{index: i, path: path, rule: rule}
		if rule == mergeFields {
			sub, err := planStruct(structOf(f.Type), path, ours, exceptions, used)
			if err != nil {
				return nil, err
			}
			fm.sub = sub
		}
		p = append(p, fm)
	}
	return p, nil
}

// defaultRule is a field's rule when no exception names it; 0 for a list.
func defaultRule(t reflect.Type, ours string) mergeRule {
	switch {
	case structOf(t) != nil && structOf(t).PkgPath() == ours:
		return mergeFields
	case t.Kind() == reflect.Map:
		return mergeKeys
	case t.Kind() == reflect.Slice:
		return 0
	}
	return mergeReplace
}

// ruleFits says why rule cannot merge a field of type t.
func ruleFits(rule mergeRule, t reflect.Type, ours string) error {
	switch rule {
	case 0:
		return fmt.Errorf("a list must say whether a cluster's items follow its class's (mergeAppend) or replace them (mergeReplace)")
	case mergeFields:
		if s := structOf(t); s == nil || s.PkgPath() != ours {
			return fmt.Errorf("only a settings struct merges field by field")
		}
	case mergeKeys:
		if t.Kind() != reflect.Map {
			return fmt.Errorf("only a map merges key by key")
		}
	case mergeKeysAnyCase:
		if t != reflect.TypeFor[map[string]string]() {
			return fmt.Errorf("only a map[string]string merges key by key in any case")
		}
	case mergeAppend:
		if t.Kind() != reflect.Slice {
			return fmt.Errorf("only a list appends")
		}
	}
	switch t.Kind() {
	case reflect.Interface, reflect.Func, reflect.Chan, reflect.Array, reflect.UnsafePointer:
		return fmt.Errorf("no rule merges a %s", t.Kind())
	}
	return nil
}

// structOf is t's struct type, through one pointer; nil when t is neither.
func structOf(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" && !f.Anonymous {
		return f.Name
	}
	return name // "" for an inlined struct: its fields are its parent's
}

func joinPath(prefix, name string) string {
	if prefix == "" || name == "" {
		return prefix + name
	}
	return prefix + "." + name
}

// MergeSettings is mergeSettings for the other controllers: the database
// controller takes its databases' defaults (databaseDefaults) from the
// cluster's settings merged with its class's, by this one rule.
func MergeSettings(class, cluster pgv1.ClusterSettings) pgv1.ClusterSettings {
	return mergeSettings(class, cluster)
}

// mergeSettings overlays a cluster's settings on its class's by
// settingsPlan. Neither is changed, and the result shares no memory with
// them.
func mergeSettings(class, cluster pgv1.ClusterSettings) pgv1.ClusterSettings {
	m, o := class.DeepCopy(), cluster.DeepCopy()
	mergeStruct(reflect.ValueOf(m).Elem(), reflect.ValueOf(o).Elem(), settingsPlan)
	return *m
}

// mergeStruct merges src into dst, an addressable struct, by plan.
func mergeStruct(dst, src reflect.Value, plan mergePlan) {
	for _, f := range plan {
		d, s := dst.Field(f.index), src.Field(f.index)
		switch f.rule {
		case mergeFields:
			if s.Kind() == reflect.Pointer {
				if s.IsNil() {
					continue
				}
				if d.IsNil() {
					d.Set(reflect.New(d.Type().Elem()))
				}
				d, s = d.Elem(), s.Elem()
			}
			mergeStruct(d, s, f.sub)
		case mergeReplace:
			if isSet(s) {
				d.Set(s)
			}
		case mergeKeys, mergeKeysAnyCase:
			d.Set(mergeMap(d, s, f.rule == mergeKeysAnyCase))
		case mergeAppend:
			d.Set(reflect.AppendSlice(d, s))
		}
	}
}

// isSet is whether the cluster gives a value: a pointer not nil, a list
// or map not empty, a scalar or struct not zero.
func isSet(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.Len() > 0
	}
	return !v.IsZero()
}

// mergeMap is base's entries overridden by over's; nil when both are
// empty. anyCase: over's key also removes base's keys equal to it in any
// case (map[string]string only, as ruleFits checks).
func mergeMap(base, over reflect.Value, anyCase bool) reflect.Value {
	if base.Len() == 0 && over.Len() == 0 {
		return reflect.Zero(base.Type())
	}
	out := reflect.MakeMapWithSize(base.Type(), base.Len()+over.Len())
	for _, m := range []reflect.Value{base, over} {
		for it := m.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), it.Value())
		}
	}
	if anyCase {
		for k := range over.Seq() {
			for b := range base.Seq() {
				if b.String() != k.String() && strings.EqualFold(b.String(), k.String()) {
					out.SetMapIndex(b, reflect.Value{})
				}
			}
		}
	}
	return out
}
