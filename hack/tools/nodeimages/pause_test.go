package nodeimages

import (
	"bytes"
	"context"
	"debug/elf"
	"testing"
)

// TestPauseImage builds the pause image for real, twice in two places,
// and walks it: the same inputs must give the same digest.
func TestPauseImage(t *testing.T) {
	first := buildPause(t)
	u := readArchive(t, first.Archive)
	checkIdentity(t, u, first)
	structure["pause"](t, u)
	f, err := elf.NewFile(bytes.NewReader(readLayerFile(t, first.Archive, "/pause")))
	if err != nil {
		t.Fatalf("/pause is not ELF: %v", err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("/pause is dynamically linked")
		}
	}
	if again := buildPause(t); again.Digest != first.Digest || again.Key != first.Key {
		t.Errorf("second build %s (key %s), first %s (key %s)", again.Digest, again.Key, first.Digest, first.Key)
	}
}

func buildPause(t *testing.T) Image {
	t.Helper()
	o := Options{Registry: "localhost/setpoint", CacheDir: t.TempDir()}
	e := &env{root: "../../..", cacheDir: o.CacheDir}
	var pause recipe
	for _, rc := range o.recipes() {
		if rc.name() == "pause" {
			pause = rc
		}
	}
	img, err := o.one(context.Background(), e, pause, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if img.Reference != "localhost/setpoint/pause:1" {
		t.Errorf("reference %s, want test/node's sandbox image localhost/setpoint/pause:1", img.Reference)
	}
	return img
}

func readLayerFile(t *testing.T, archive, p string) []byte {
	t.Helper()
	data := readArchive(t, archive).data[p]
	if len(data) == 0 {
		t.Fatalf("%s: no %s", archive, p)
	}
	return data
}
