package cluster

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// settingLeaf is one setting the merge takes as a value: a field of
// ClusterSettings, or of a settings struct below it, that does not merge
// field by field.
type settingLeaf struct {
	path  string
	index []int // field indexes from ClusterSettings, through pointers
	typ   reflect.Type
	rule  mergeRule
}

// settingLeaves walks ClusterSettings by itself and asks settingsPlan for
// each field's rule: a field missing from the plan fails the test.
func settingLeaves(t *testing.T) []settingLeaf {
	t.Helper()
	var leaves []settingLeaf
	var walk func(st reflect.Type, plan mergePlan, index []int)
	walk = func(st reflect.Type, plan mergePlan, index []int) {
		for i := range st.NumField() {
			f := st.Field(i)
			j := slicesIndex(plan, i)
			if j < 0 {
				t.Fatalf("%s.%s is not in the merge plan: it is never merged", st.Name(), f.Name)
			}
			fm := plan[j]
			idx := append(append([]int{}, index...), i)
			if fm.rule == mergeFields {
				walk(structOf(f.Type), fm.sub, idx)
				continue
			}
			leaves = append(leaves, settingLeaf{path: fm.path, index: idx, typ: f.Type, rule: fm.rule})
		}
	}
	walk(reflect.TypeFor[pgv1.ClusterSettings](), settingsPlan, nil)
	return leaves
}

func slicesIndex(plan mergePlan, field int) int {
	for j, fm := range plan {
		if fm.index == field {
			return j
		}
	}
	return -1
}

// at is the leaf's field in s, allocating the structs on the way when
// alloc; invalid when a pointer on the way is nil and !alloc.
func (l settingLeaf) at(s *pgv1.ClusterSettings, alloc bool) reflect.Value {
	v := reflect.ValueOf(s).Elem()
	for n, i := range l.index {
		v = v.Field(i)
		if n == len(l.index)-1 {
			break
		}
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !alloc {
					return reflect.Value{}
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
	}
	return v
}

func (l settingLeaf) get(s pgv1.ClusterSettings) any {
	v := l.at(&s, false)
	if !v.IsValid() {
		return reflect.Zero(l.typ).Interface()
	}
	return v.Interface()
}

// setting is a ClusterSettings with the given leaves set to side's sample.
func setting(t *testing.T, side string, leaves ...settingLeaf) pgv1.ClusterSettings {
	var s pgv1.ClusterSettings
	for _, l := range leaves {
		l.at(&s, true).Set(sample(t, l.typ, side))
	}
	return s
}

// opaqueSamples are values of types whose fields are not exported.
var opaqueSamples = map[reflect.Type]map[string]any{
	reflect.TypeFor[resource.Quantity](): {"class": resource.MustParse("1Gi"), "cluster": resource.MustParse("2Gi")},
	reflect.TypeFor[time.Time]():         {"class": time.Unix(1, 0).UTC(), "cluster": time.Unix(2, 0).UTC()},
}

// sample is a value of type typ that is set, and differs between the
// sides "class" and "cluster" (a bool only behind a pointer).
func sample(t *testing.T, typ reflect.Type, side string) reflect.Value {
	t.Helper()
	cluster := side == "cluster"
	v := reflect.New(typ).Elem()
	if o, ok := opaqueSamples[typ]; ok {
		v.Set(reflect.ValueOf(o[side]))
		return v
	}
	switch typ.Kind() {
	case reflect.Pointer:
		if typ.Elem().Kind() == reflect.Bool {
			v.Set(reflect.ValueOf(ptr.To(!cluster)).Convert(typ)) // the cluster's false is set too
			return v
		}
		v.Set(reflect.New(typ.Elem()))
		v.Elem().Set(sample(t, typ.Elem(), side))
	case reflect.String:
		v.SetString(side)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(map[bool]int64{false: 1, true: 2}[cluster])
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(map[bool]uint64{false: 1, true: 2}[cluster])
	case reflect.Float32, reflect.Float64:
		v.SetFloat(map[bool]float64{false: 1.5, true: 2.5}[cluster])
	case reflect.Slice:
		v.Set(reflect.Append(v, sample(t, typ.Elem(), side)))
	case reflect.Map:
		// A key of each side's own, one both give, and one both give in
		// another case.
		v.Set(reflect.MakeMap(typ))
		for _, k := range []string{side + "_only", "both", map[bool]string{false: "case", true: "CASE"}[cluster]} {
			v.SetMapIndex(reflect.ValueOf(k).Convert(typ.Key()), sample(t, typ.Elem(), side))
		}
	case reflect.Struct:
		for i := range typ.NumField() {
			if typ.Field(i).IsExported() {
				v.Field(i).Set(sample(t, typ.Field(i).Type, side))
			}
		}
	}
	if v.IsZero() {
		t.Fatalf("no sample of %s: add one to opaqueSamples", typ)
	}
	return v
}

// wantMerged is what rule makes of class's and cluster's values, each
// either the side's sample or unset; computed here from the rule's
// meaning, not by the merge.
func wantMerged(t *testing.T, l settingLeaf, class, cluster bool) any {
	c, k := reflect.Zero(l.typ), reflect.Zero(l.typ)
	if class {
		c = sample(t, l.typ, "class")
	}
	if cluster {
		k = sample(t, l.typ, "cluster")
	}
	switch {
	case !cluster:
		return c.Interface()
	case !class:
		return k.Interface()
	}
	switch l.rule {
	case mergeReplace:
		return k.Interface()
	case mergeAppend:
		return reflect.AppendSlice(c, k).Interface()
	case mergeKeys, mergeKeysAnyCase:
		m := reflect.MakeMap(l.typ)
		for _, src := range []reflect.Value{c, k} {
			for it := src.MapRange(); it.Next(); {
				m.SetMapIndex(it.Key(), it.Value())
			}
		}
		if l.rule == mergeKeysAnyCase {
			m.SetMapIndex(reflect.ValueOf("case"), reflect.Value{}) // the cluster's CASE replaces it
		}
		return m.Interface()
	}
	t.Fatalf("%s: no expectation for rule %s", l.path, l.rule)
	return nil
}

// Every leaf of the settings, set in the class, the cluster or both,
// alone or beside every other leaf set on the other side, merges as its
// rule says; the other leaves keep the other side's values. A new field
// is covered here with no edit; one the rules cannot merge fails when the
// package loads (settingsPlan).
func TestEverySettingMerges(t *testing.T) {
	t.Parallel()
	leaves := settingLeaves(t)
	for _, l := range leaves {
		t.Run(l.path, func(t *testing.T) {
			others := func(side string) pgv1.ClusterSettings {
				var rest []settingLeaf
				for _, o := range leaves {
					if o.path != l.path {
						rest = append(rest, o)
					}
				}
				return setting(t, side, rest...)
			}
			for _, tc := range []struct {
				name           string
				class, cluster bool
				classOthers    bool // every other leaf set in the class
				clusterOthers  bool
			}{
				{name: "neither"},
				{name: "class only", class: true},
				{name: "cluster only", cluster: true},
				{name: "both", class: true, cluster: true},
				{name: "cluster only, class sets all else", cluster: true, classOthers: true},
				{name: "both, class sets all else", class: true, cluster: true, classOthers: true},
				{name: "class only, cluster sets all else", class: true, clusterOthers: true},
				{name: "both, cluster sets all else", class: true, cluster: true, clusterOthers: true},
			} {
				var class, cluster pgv1.ClusterSettings
				if tc.classOthers {
					class = others("class")
				}
				if tc.clusterOthers {
					cluster = others("cluster")
				}
				if tc.class {
					l.at(&class, true).Set(sample(t, l.typ, "class"))
				}
				if tc.cluster {
					l.at(&cluster, true).Set(sample(t, l.typ, "cluster"))
				}
				class0, cluster0 := snapshot(t, class), snapshot(t, cluster)
				m := mergeSettings(class, cluster)
				if got, want := l.get(m), wantMerged(t, l, tc.class, tc.cluster); !equality.Semantic.DeepEqual(got, want) {
					t.Errorf("%s: %s (%s) = %s, want %s", tc.name, l.path, l.rule, show(got), show(want))
				}
				for _, o := range leaves {
					if o.path == l.path || !(tc.classOthers || tc.clusterOthers) {
						continue
					}
					if got, want := o.get(m), wantMerged(t, o, tc.classOthers, tc.clusterOthers); !equality.Semantic.DeepEqual(got, want) {
						t.Errorf("%s: %s = %s beside %s, want %s", tc.name, o.path, show(got), l.path, show(want))
					}
				}
				if snapshot(t, class) != class0 || snapshot(t, cluster) != cluster0 {
					t.Errorf("%s: the merge changed its inputs", tc.name)
				}
			}
		})
	}
}

// snapshot is s as JSON: a copy that shares nothing, even with a
// DeepCopy not yet regenerated for a new field.
func snapshot(t *testing.T, s pgv1.ClusterSettings) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func show(v any) string {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		return fmt.Sprintf("&%v", rv.Elem().Interface())
	}
	return fmt.Sprintf("%v", v)
}

// The merged result shares no memory with the class or the cluster:
// components may change what they build from it.
func TestMergedSettingsShareNothing(t *testing.T) {
	t.Parallel()
	for _, l := range settingLeaves(t) {
		if k := l.typ.Kind(); k != reflect.Pointer && k != reflect.Map && k != reflect.Slice {
			continue
		}
		for _, side := range []string{"class", "cluster"} {
			class, cluster := setting(t, "class"), setting(t, "cluster")
			in := map[string]*pgv1.ClusterSettings{"class": &class, "cluster": &cluster}[side]
			l.at(in, true).Set(sample(t, l.typ, side))
			before := snapshot(t, *in)
			m := mergeSettings(class, cluster)
			v := l.at(&m, false)
			switch l.typ.Kind() {
			case reflect.Pointer:
				if v.Elem().IsZero() { // the cluster's false
					v.Elem().Set(sample(t, l.typ.Elem(), "class"))
				} else {
					v.Elem().Set(reflect.Zero(l.typ.Elem()))
				}
			case reflect.Map:
				v.SetMapIndex(reflect.ValueOf("changed").Convert(l.typ.Key()), sample(t, l.typ.Elem(), side))
			case reflect.Slice:
				v.Index(0).Set(reflect.Zero(l.typ.Elem()))
			}
			if snapshot(t, *in) != before {
				t.Errorf("%s: changing the merged value changed the %s's", l.path, side)
			}
		}
	}
}

// The documented exceptions to "field by field", pinned by their
// behaviour (docs/guides/classes.md).
func TestDocumentedSettingsMerges(t *testing.T) {
	t.Parallel()
	class := pgv1.ClusterSettings{
		Resources: &corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
		},
		Backup: &pgv1.BackupSpec{
			ObjectStore: &pgv1.ObjectStoreSpec{DestinationPath: "s3://class", CredentialsSecretName: "class-creds", RetentionPolicy: "30d"},
			Schedule:    "0 2 * * *",
		},
		ConnectionPooler: &pgv1.ConnectionPoolerSpec{Parameters: map[string]string{"max_client_conn": "100", "default_pool_size": "10"}},
		PgHBA:            []string{"host all all 10.0.0.0/8 scram-sha-256"},
	}
	m := mergeSettings(class, pgv1.ClusterSettings{
		Resources:        &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("2Gi")}},
		Backup:           &pgv1.BackupSpec{ObjectStore: &pgv1.ObjectStoreSpec{DestinationPath: "s3://cluster"}},
		ConnectionPooler: &pgv1.ConnectionPoolerSpec{Parameters: map[string]string{"default_pool_size": "20"}},
		PgHBA:            []string{"host all all 192.168.0.0/16 scram-sha-256"},
	})
	if r := m.Resources; len(r.Requests) != 1 || r.Requests.Memory().String() != "2Gi" || r.Limits != nil {
		t.Errorf("resources = %+v, want the cluster's whole", r)
	}
	if s := m.Backup.ObjectStore; !reflect.DeepEqual(*s, pgv1.ObjectStoreSpec{DestinationPath: "s3://cluster"}) {
		t.Errorf("objectStore = %+v, want the cluster's whole, without the class's credentials", s)
	}
	if m.Backup.Schedule != "0 2 * * *" {
		t.Errorf("schedule = %q, want the class's beside the cluster's objectStore", m.Backup.Schedule)
	}
	if p := m.ConnectionPooler.Parameters; len(p) != 2 || p["max_client_conn"] != "100" || p["default_pool_size"] != "20" {
		t.Errorf("pooler parameters = %v, want merged key by key", p)
	}
	if strings.Join(m.PgHBA, "|") != "host all all 10.0.0.0/8 scram-sha-256|host all all 192.168.0.0/16 scram-sha-256" {
		t.Errorf("pg_hba = %v, want the class's lines then the cluster's", m.PgHBA)
	}
}

// A list without a rule, an exception naming no field or one that does
// not fit its field's kind cannot make a plan.
func TestPlanMergeRefusesWhatItCannotMerge(t *testing.T) {
	t.Parallel()
	type inner struct {
		A *string `json:"a,omitempty"`
	}
	type settings struct {
		Lines []string          `json:"lines,omitempty"`
		Inner *inner            `json:"inner,omitempty"`
		M     map[string]string `json:"m,omitempty"`
		N     map[string]int    `json:"n,omitempty"`
	}
	typ := reflect.TypeFor[settings]()
	for _, tc := range []struct {
		exceptions map[string]mergeRule
		err        string // "" when the plan is made
	}{
		{map[string]mergeRule{}, "lines ([]string): a list must say"},
		{map[string]mergeRule{"lines": mergeAppend}, ""},
		{map[string]mergeRule{"lines": mergeReplace, "inner": mergeReplace, "m": mergeKeysAnyCase}, ""},
		{map[string]mergeRule{"lines": mergeAppend, "inner.b": mergeReplace}, `"inner.b" names no field`},
		{map[string]mergeRule{"lines": mergeAppend, "inner.a": mergeKeys}, "inner.a (*string): only a map merges key by key"},
		{map[string]mergeRule{"lines": mergeAppend, "n": mergeKeysAnyCase}, "n (map[string]int): only a map[string]string"},
		{map[string]mergeRule{"lines": mergeKeys}, "lines ([]string): only a map"},
		{map[string]mergeRule{"lines": mergeAppend, "m": mergeAppend}, "m (map[string]string): only a list appends"},
	} {
		_, err := planMerge(typ, tc.exceptions)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("exceptions %v: err = %v, want %q", tc.exceptions, err, tc.err)
		}
	}
	if _, err := planMerge(reflect.TypeFor[struct {
		F func() `json:"f"`
	}](), nil); err == nil || !strings.Contains(err.Error(), "no rule merges a func") {
		t.Errorf("a func field: err = %v", err)
	}
}

// BenchmarkMergeSettings merges a class and a cluster as resolve does
// once per pass.
func BenchmarkMergeSettings(b *testing.B) {
	cl := class().Spec.ClusterSettings
	cl.Backup = &pgv1.BackupSpec{ObjectStore: &pgv1.ObjectStoreSpec{DestinationPath: "s3://b", CredentialsSecretName: "c"}, Schedule: "0 2 * * *"}
	cl.Monitoring = &pgv1.MonitoringSpec{Enabled: ptr.To(true)}
	over := pgv1.ClusterSettings{
		Instances:        ptr.To[int32](2),
		Storage:          &pgv1.StorageSpec{Size: ptr.To(resource.MustParse("20Gi")), AutoGrow: &pgv1.AutoGrowSpec{Enabled: ptr.To(true), Limit: ptr.To(resource.MustParse("40Gi"))}},
		PostgreSQLConfig: map[string]string{"WORK_MEM": "16MB"},
		PgHBA:            []string{"host all all 192.168.0.0/16 scram-sha-256"},
		ConnectionPooler: &pgv1.ConnectionPoolerSpec{Parameters: map[string]string{"default_pool_size": "20"}},
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = mergeSettings(cl, over)
	}
}
