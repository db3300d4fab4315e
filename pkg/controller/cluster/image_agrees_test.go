package cluster

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// An imageName whose tag runs another major than a postgresVersion set in
// the class or the cluster is refused, naming where each came from; a tag
// without a major, or no postgresVersion at all, leaves the image in
// charge.
func TestImageNameMustAgreeWithPostgresVersion(t *testing.T) {
	t.Parallel()
	pinned := func(image string, version *int32) *pgv1.PostgresClusterClass {
		c := class()
		c.Spec.PostgresVersion, c.Spec.ImageName = version, image
		return c
	}
	for _, tc := range []struct {
		name    string
		class   *pgv1.PostgresClusterClass
		cluster pgv1.ClusterSettings
		want    string // a part of the refusal; "" when accepted
	}{
		{"the class pins 15 and the cluster asks 17", pinned("reg/postgresql:15.8", ptr.To[int32](15)),
			pgv1.ClusterSettings{PostgresVersion: ptr.To[int32](17)},
			`postgresVersion 17 (from the cluster) disagrees with imageName reg/postgresql:15.8 (from class "standard"), whose tag runs PostgreSQL 15`},
		{"the cluster's image against the class's version", class(),
			pgv1.ClusterSettings{ImageName: "reg/postgresql:17.2"},
			`postgresVersion 16 (from class "standard") disagrees with imageName reg/postgresql:17.2 (from the cluster)`},
		{"both raised together", pinned("reg/postgresql:15.8", ptr.To[int32](15)),
			pgv1.ClusterSettings{PostgresVersion: ptr.To[int32](17), ImageName: "reg/postgresql:17.2"}, ""},
		{"no postgresVersion anywhere", pinned("reg/postgresql:17.2", nil), pgv1.ClusterSettings{}, ""},
		{"a digest says no major", class(), pgv1.ClusterSettings{ImageName: "reg/postgresql@sha256:0123abcd"}, ""},
		{"a tag without a major", class(), pgv1.ClusterSettings{ImageName: "reg/postgresql:latest"}, ""},
		{"no imageName: the image follows postgresVersion", class(), pgv1.ClusterSettings{PostgresVersion: ptr.To[int32](17)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := resolve(cluster(tc.cluster), tc.class)
			var se *specError
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (!errors.As(err, &se) || se.reason != pgv1.ReasonImageMajorMismatch):
				t.Fatalf("err = %v, want %s", err, pgv1.ReasonImageMajorMismatch)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Errorf("message %q lacks %q", err, tc.want)
			}
		})
	}
}
