package nodeimages

import (
	"os"
	"strings"
	"testing"
)

// TestCheckNeeded: a binary whose library is missing is refused by name;
// the library present through a link, as Debian installs it, passes.
func TestCheckNeeded(t *testing.T) {
	bin, err := os.ReadFile("/usr/bin/true") // any dynamic ELF binary needing libc.so.6
	if err != nil {
		t.Fatal(err)
	}
	r := newRootFS()
	r.File("/usr/bin/true", 0o755, bin)
	err = r.checkNeeded()
	if err == nil || !strings.Contains(err.Error(), "/usr/bin/true needs libc.so.6") {
		t.Fatalf("checkNeeded without libc = %v, want it to name libc.so.6", err)
	}
	r.Symlink(multiarchLib+"/libc.so.6", "libc-2.41.so")
	if err := r.checkNeeded(); err == nil {
		t.Fatal("a dangling link passed for libc.so.6")
	}
	r.File(multiarchLib+"/libc-2.41.so", 0o644, []byte("not checked: no ELF header"))
	if err := r.checkNeeded(); err != nil {
		t.Fatalf("libc through a link: %v", err)
	}
}

func TestUpstreamMinor(t *testing.T) {
	for in, want := range map[string]string{"17.12-0+deb13u1": "17.12", "1:17.2-1": "17.2", "17.4": "17.4"} {
		if got := upstreamMinor(in); got != want {
			t.Errorf("upstreamMinor(%q) = %q, want %q", in, got, want)
		}
	}
}
