package nodeimages

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// fakeRecipe builds a one-file image from its input and counts builds.
type fakeRecipe struct {
	value  string
	builds *int
}

func (fakeRecipe) name() string { return "fake" }

func (f fakeRecipe) prepare(context.Context, *env) (*plan, error) {
	return &plan{tag: "t", in: inputs{"value": f.value}, build: func(context.Context, string) (*rootFS, config, error) {
		*f.builds++
		r := newRootFS()
		r.File("/value", 0o644, []byte(f.value))
		return r, config{User: "1:1"}, nil
	}}, nil
}

// TestOneBuildsOnlyWhenInputsChange: the same inputs find their archive;
// another input builds another archive and removes the stale one.
func TestOneBuildsOnlyWhenInputsChange(t *testing.T) {
	out := t.TempDir()
	o := Options{Registry: "localhost/setpoint", CacheDir: t.TempDir()}
	e := &env{cacheDir: o.CacheDir}
	builds := 0
	first, err := o.one(context.Background(), e, fakeRecipe{"a", &builds}, out)
	if err != nil {
		t.Fatal(err)
	}
	again, err := o.one(context.Background(), e, fakeRecipe{"a", &builds}, out)
	if err != nil {
		t.Fatal(err)
	}
	if builds != 1 || again != first {
		t.Errorf("same inputs: %d builds, images %+v and %+v; want 1 build and the same image", builds, first, again)
	}
	changed, err := o.one(context.Background(), e, fakeRecipe{"b", &builds}, out)
	if err != nil {
		t.Fatal(err)
	}
	if builds != 2 || changed.Archive == first.Archive || changed.Digest == first.Digest {
		t.Errorf("changed input: %d builds, archive %s digest %s; want a second build into a new archive", builds, changed.Archive, changed.Digest)
	}
	if _, err := os.Stat(first.Archive); !os.IsNotExist(err) {
		t.Errorf("stale archive %s still there (%v)", first.Archive, err)
	}
	left, _ := filepath.Glob(filepath.Join(out, "fake-*"))
	if len(left) != 2 { // the archive and its record
		t.Errorf("files left %v, want the new archive and its record", left)
	}
}

// TestCachedNeedsRecord: an archive without its record (a build cut
// short) is not taken as done.
func TestCachedNeedsRecord(t *testing.T) {
	archive := filepath.Join(t.TempDir(), archiveName("x", "0123456789abcdef"))
	if err := os.WriteFile(archive, []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := cached(archive); ok {
		t.Error("an archive without a record counted as cached")
	}
}
