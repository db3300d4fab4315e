package cluster

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

var (
	pinned  = &pgv1.ImageCatalogRef{Kind: pgv1.ImageCatalogKindCluster, Name: "pinned"}
	ownRepo = &pgv1.ImageCatalogRef{Kind: pgv1.ImageCatalogKindNamespaced, Name: "own"}
)

// imageName and imageCatalog are one choice: the cluster's, when it makes
// one, replaces its class's whichever field each uses.
func TestImageChoiceIsTheClustersOverItsClass(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		class, cluster pgv1.ClusterSettings
		image          string
		catalog        *pgv1.ImageCatalogRef
	}{
		{name: "neither: CNPG's image of the major", image: "ghcr.io/cloudnative-pg/postgresql:16"},
		{name: "class catalog", class: pgv1.ClusterSettings{ImageCatalog: pinned}, catalog: pinned},
		{name: "class image", class: pgv1.ClusterSettings{ImageName: "reg/pg:16.4"}, image: "reg/pg:16.4"},
		{name: "class catalog, cluster image: a one-off override",
			class: pgv1.ClusterSettings{ImageCatalog: pinned}, cluster: pgv1.ClusterSettings{ImageName: "reg/pg:16.4"}, image: "reg/pg:16.4"},
		{name: "class image, cluster catalog",
			class: pgv1.ClusterSettings{ImageName: "reg/pg:16.4"}, cluster: pgv1.ClusterSettings{ImageCatalog: ownRepo}, catalog: ownRepo},
		{name: "both catalogs: the cluster's whole",
			class: pgv1.ClusterSettings{ImageCatalog: pinned}, cluster: pgv1.ClusterSettings{ImageCatalog: ownRepo}, catalog: ownRepo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := class()
			cl.Spec.ImageName, cl.Spec.ImageCatalog = tc.class.ImageName, tc.class.ImageCatalog
			d, err := resolve(cluster(tc.cluster), cl)
			if err != nil {
				t.Fatal(err)
			}
			if d.ImageName != tc.image {
				t.Errorf("image = %q, want %q", d.ImageName, tc.image)
			}
			if (d.ImageCatalog == nil) != (tc.catalog == nil) || (d.ImageCatalog != nil && *d.ImageCatalog != *tc.catalog) {
				t.Errorf("catalog = %+v, want %+v", d.ImageCatalog, tc.catalog)
			}
			if d.ImageCatalog != nil && d.ImageCatalog == tc.cluster.ImageCatalog {
				t.Errorf("the resolved catalog shares memory with the cluster's")
			}
		})
	}
}

// With a catalog the CNPG Cluster gets imageCatalogRef with the major and
// no imageName; a converged Cluster is not written again, and a changed
// major or catalog is drift that the same apply repairs.
func TestCatalogReachesTheCNPGCluster(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	c := provisionerComponent{}
	settings := pgv1.ClusterSettings{ImageCatalog: pinned, PostgresVersion: ptr.To[int32](17)}
	p := provisionerPass(t, cs, settings)
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	hash, err := hashOf(desiredClusterSpec(p))
	if err != nil {
		t.Fatal(err)
	}
	want := superuserClusterApply(hash)
	want.Spec.ImageName = nil
	want.Spec.WithImageCatalogRef(cnpgac.ImageCatalogRef().WithAPIGroup("postgresql.cnpg.io").
		WithKind("ClusterImageCatalog").WithName("pinned").WithMajor(17))
	applies := ct.Writes(cs.Actions())
	if len(applies) != 1 {
		t.Fatalf("first pass wrote %v, want one apply", applies)
	}
	if d := ct.Sends(want)(applies[0]); d != "" {
		t.Fatalf("apply of the CNPG Cluster: %s", d)
	}
	applied := p.provisioner.cnpg
	if r := applied.Spec.ImageCatalogRef; r == nil || r.Major != 17 || applied.Spec.ImageName != "" {
		t.Fatalf("applied spec = imageName %q, imageCatalogRef %+v", applied.Spec.ImageName, r)
	}

	n := len(cs.Actions())
	p = provisionerPass(t, cs, settings)
	p.obs.cnpg = applied
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if len(cs.Actions()) != n {
		t.Fatalf("converged pass wrote: %v", cs.Actions()[n:])
	}

	for name, drift := range map[string]func(*cnpgv1.Cluster){
		"major":            func(cl *cnpgv1.Cluster) { cl.Spec.ImageCatalogRef.Major = 15 },
		"catalog":          func(cl *cnpgv1.Cluster) { cl.Spec.ImageCatalogRef.Name = "other" },
		"kind":             func(cl *cnpgv1.Cluster) { cl.Spec.ImageCatalogRef.Kind = "ImageCatalog" },
		"image name added": func(cl *cnpgv1.Cluster) { cl.Spec.ImageName = "reg/pg:17" },
	} {
		drifted := applied.DeepCopy()
		drift(drifted)
		p = provisionerPass(t, cs, settings)
		p.obs.cnpg = drifted
		n = len(cs.Actions())
		if err := c.Reconcile(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		if w := ct.Writes(cs.Actions()[n:]); len(w) != 1 || ct.Sends(want)(w[0]) != "" {
			t.Errorf("%s drifted: writes %v, want the same apply", name, w)
		}
	}
}

// A CNPG Cluster that runs an image by name moves to the catalog by an
// apply without imageName (ours, so the apply removes it: CNPG refuses
// both), and one that runs a catalog moves back the same way.
func TestImageNameAndCatalogReplaceEachOther(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	c := provisionerComponent{}
	byName := provisionerPass(t, cs, pgv1.ClusterSettings{})
	if err := c.Reconcile(t.Context(), byName); err != nil {
		t.Fatal(err)
	}
	if clusterMatches(byName.provisioner.cnpg, provisionerPass(t, cs, pgv1.ClusterSettings{ImageCatalog: pinned})) {
		t.Fatal("a Cluster running an image by name matches a catalog")
	}
	p := provisionerPass(t, cs, pgv1.ClusterSettings{ImageCatalog: pinned})
	p.obs.cnpg = byName.provisioner.cnpg
	n := len(cs.Actions())
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	w := ct.Writes(cs.Actions()[n:])
	if len(w) != 1 {
		t.Fatalf("writes %v, want one apply", w)
	}
	spec := desiredClusterSpec(p)
	if spec.ImageName != nil || spec.ImageCatalogRef == nil || *spec.ImageCatalogRef.Major != 16 {
		t.Fatalf("apply = imageName %v, imageCatalogRef %+v; want the catalog with the class's major 16 only", spec.ImageName, spec.ImageCatalogRef)
	}
	if clusterMatches(p.provisioner.cnpg, byName) {
		t.Fatal("a Cluster running a catalog matches an image by name")
	}
}

// A catalog's major is the running major: a class edit below it is
// refused before anything is applied, whether the wanted image is a
// catalog's or a name's.
func TestCatalogMajorCannotGoDown(t *testing.T) {
	t.Parallel()
	pc := cluster(pgv1.ClusterSettings{ImageCatalog: pinned})
	pc.UID = "uid-1"
	onCatalog := func(major int) *cnpgv1.Cluster {
		cl := runningCluster(pc, "", "10Gi")
		cl.Spec.ImageCatalogRef = &cnpgv1.ImageCatalogRef{APIGroup: ptr.To("postgresql.cnpg.io"), Kind: "ClusterImageCatalog", Name: "pinned", Major: major}
		return cl
	}
	byName := cluster(pgv1.ClusterSettings{})
	byName.UID = "uid-1"
	for _, tc := range []struct {
		name    string
		pc      *pgv1.PostgresCluster
		running *cnpgv1.Cluster
		refused bool
	}{
		{"catalog, same major", pc, onCatalog(16), false},
		{"catalog, major up", pc, onCatalog(15), false},
		{"catalog, major down", pc, onCatalog(17), true},
		{"catalog after an image of a higher major", pc, runningCluster(pc, "ghcr.io/cloudnative-pg/postgresql:17", "10Gi"), true},
		{"image after a catalog of a higher major", byName, onCatalog(17), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := resolveAgainst(tc.pc, class(), tc.running, t0)
			var se *specError
			if refused := errors.As(err, &se) && se.reason == pgv1.ReasonDowngradeRefused; refused != tc.refused {
				t.Fatalf("err = %v, want refused %v", err, tc.refused)
			}
			if tc.refused && !strings.Contains(err.Error(), "major version 17") {
				t.Errorf("message %q does not name the running major", err)
			}
		})
	}
}

// CNPG's message for a catalog without the major is quoted, with the
// catalog and the major it names neither of.
func TestCatalogErrorNamesTheCatalogAndMajor(t *testing.T) {
	t.Parallel()
	cl := &cnpgv1.Cluster{
		Spec: cnpgv1.ClusterSpec{ImageCatalogRef: &cnpgv1.ImageCatalogRef{Kind: "ClusterImageCatalog", Name: "pinned", Major: 18}},
		Status: cnpgv1.ClusterStatus{Phase: "Cluster has incomplete or invalid image catalog",
			PhaseReason: "selected major version is not available in the catalog"},
	}
	got := describePhase(cl)
	for _, want := range []string{
		`CNPG: "Cluster has incomplete or invalid image catalog": selected major version is not available in the catalog`,
		`ClusterImageCatalog "pinned", major 18`, "an image for major 18",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("message %q lacks %q", got, want)
		}
	}
	if phase, _ := mapPhase(cl.Status.Phase); phase != pgv1.PhaseFailed {
		t.Errorf("phase = %s, want Failed", phase)
	}
	cl.Status.Phase = "Cluster in healthy state"
	if strings.Contains(describePhase(cl), "imageCatalogRef") {
		t.Errorf("a healthy Cluster's message names the catalog: %q", describePhase(cl))
	}
}
