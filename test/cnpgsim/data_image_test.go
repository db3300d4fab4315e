package cnpgsim

import (
	"testing"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// The major CNPG reads from an imageName tag (version.FromTag takes the
// leading number): with a registry port, a flavour suffix, a digest.
func TestTagMajor(t *testing.T) {
	for image, want := range map[string]int{
		"ghcr.io/cloudnative-pg/postgresql:17.2":                    17,
		"localhost:5000/setpoint/postgresql:15.18":                  15,
		"ghcr.io/cloudnative-pg/postgresql:16-minimal-trixie":       16,
		"reg/pg:18@sha256:0123456789abcdef0123456789abcdef01234567": 18,
	} {
		if got, err := tagMajor(image); err != nil || got != want {
			t.Errorf("tagMajor(%q) = %d, %v; want %d", image, got, err, want)
		}
	}
	for _, image := range []string{"reg/pg", "reg/pg:latest", "localhost:5000/pg"} {
		if got, err := tagMajor(image); err == nil {
			t.Errorf("tagMajor(%q) = %d, want an error (CNPG cannot parse it)", image, got)
		}
	}
}

// pgDataImageInfo follows CNPG's reconcileImage: set at once on a new
// Cluster, kept for the same image and for a higher major (the upgrade
// moves it), replaced for another image of the same major, and a lower
// major refused.
func TestNextDataImageAsCNPG(t *testing.T) {
	v15 := cnpgv1.ImageInfo{Image: "pg:15.1", MajorVersion: 15}
	v15b := cnpgv1.ImageInfo{Image: "pg:15.2", MajorVersion: 15}
	v17 := cnpgv1.ImageInfo{Image: "pg:17.1", MajorVersion: 17}
	for _, tc := range []struct {
		name    string
		cur     *cnpgv1.ImageInfo
		want    cnpgv1.ImageInfo
		next    *cnpgv1.ImageInfo
		refused bool
	}{
		{"new cluster", nil, v15, &v15, false},
		{"same image", &v15, v15, nil, false},
		{"same major, new image", &v15, v15b, &v15b, false},
		{"higher major waits for the upgrade", &v15, v17, nil, false},
		{"lower major refused", &v17, v15, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next, err := nextDataImage(tc.cur, tc.want)
			if (err != nil) != tc.refused {
				t.Fatalf("error %v, refused %v", err, tc.refused)
			}
			if (next == nil) != (tc.next == nil) || (next != nil && *next != *tc.next) {
				t.Errorf("next = %+v, want %+v", next, tc.next)
			}
		})
	}
}
