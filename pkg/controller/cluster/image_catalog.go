package cluster

import (
	"fmt"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

// cnpgGroup is the API group of CNPG's image catalogs, which
// imageCatalogRef must name (CNPG's CRD refuses any other).
const cnpgGroup = "postgresql.cnpg.io"

// cnpgPhaseImageCatalog is CNPG's phase when it cannot pick the image from
// the catalog: the catalog is missing, or has no image for the major
// (internal/controller/cluster_image.go; phaseReason says which).
const cnpgPhaseImageCatalog = "Cluster has incomplete or invalid image catalog"

// imageChoice is the image the CNPG Cluster runs: an image name, or a
// catalog (with no image name). imageName and imageCatalog are one choice
// made twice over: the merge (settings_merge.go) keeps each field on its
// own, so a class's catalog and a cluster's one-off imageName would both
// survive it, and CNPG refuses a Cluster with both. The cluster's choice
// wins; the API refuses both in one object, so without a cluster choice
// the merged settings hold at most the class's one. Neither: the
// CloudNativePG image of the major.
func imageChoice(cluster, merged pgv1.ClusterSettings, major int32) (string, *pgv1.ImageCatalogRef) {
	switch {
	case cluster.ImageName != "":
		return cluster.ImageName, nil
	case merged.ImageCatalog != nil:
		return "", merged.ImageCatalog // the cluster's when it names one (the merge took it)
	case merged.ImageName != "":
		return merged.ImageName, nil
	}
	return fmt.Sprintf("ghcr.io/cloudnative-pg/postgresql:%d", major), nil
}

// catalogRefApply is imageCatalogRef as the CNPG Cluster gets it: the
// catalog with a major, so a major upgrade stays one field
// (postgresVersion) and the catalog keeps the exact image of each major.
func catalogRefApply(ref *pgv1.ImageCatalogRef, major int) *cnpgac.ImageCatalogRefApplyConfiguration {
	return cnpgac.ImageCatalogRef().WithAPIGroup(cnpgGroup).WithKind(string(ref.Kind)).
		WithName(ref.Name).WithMajor(major)
}

// imageApplied is the image the CNPG Cluster gets in this pass: the one
// the spec wants, or the one a major upgrade holds (upgradeState.hold).
// Exactly one of name and catalog is set.
func imageApplied(p *pass) (string, *cnpgac.ImageCatalogRefApplyConfiguration) {
	if h := p.upgradeHold(); h != nil {
		if h.catalog != nil {
			return "", catalogRefApply(h.catalog, h.major)
		}
		return h.name, nil
	}
	if w := p.want; w.ImageCatalog != nil {
		return "", catalogRefApply(w.ImageCatalog, int(w.PostgresVersion))
	}
	return p.want.ImageName, nil
}

// appliedMajor is the major of the image this pass applies.
func appliedMajor(p *pass) (int, bool) {
	name, catalog := imageApplied(p)
	if catalog != nil {
		return *catalog.Major, true
	}
	return imageMajor(name)
}

// imageMatches: the CNPG Cluster names the image this pass applies, by
// name or by catalog and major, and not the other one too.
func imageMatches(s cnpgv1.ClusterSpec, p *pass) bool {
	r := s.ImageCatalogRef
	name, want := imageApplied(p)
	if want == nil {
		return r == nil && s.ImageName == name
	}
	return s.ImageName == "" && r != nil && r.APIGroup != nil && *r.APIGroup == cnpgGroup &&
		r.Kind == *want.Kind && r.Name == *want.Name && r.Major == *want.Major
}

// runningMajor is the major the CNPG Cluster asks for: its catalog's, or
// the one its image tag starts with; false when neither says.
func runningMajor(cl *cnpgv1.Cluster) (int, bool) {
	if r := cl.Spec.ImageCatalogRef; r != nil {
		return r.Major, true
	}
	return imageMajor(cl.Spec.ImageName)
}

// wantedMajor is the major the desired image runs: postgresVersion with a
// catalog, else the image tag's.
func wantedMajor(d *desired) (int, bool) {
	if d.ImageCatalog != nil {
		return int(d.PostgresVersion), true
	}
	return imageMajor(d.ImageName)
}

// describeImage names the image the CNPG Cluster asks for, for messages.
func describeImage(cl *cnpgv1.Cluster) string {
	if r := cl.Spec.ImageCatalogRef; r != nil {
		return fmt.Sprintf("%s %q, major %d", r.Kind, r.Name, r.Major)
	}
	return "image " + cl.Spec.ImageName
}

// catalogHint names the catalog and major of a CNPG Cluster whose image
// CNPG could not pick: CNPG's phaseReason ("selected major version is not
// available in the catalog") names neither. "" in any other phase.
func catalogHint(cl *cnpgv1.Cluster) string {
	if cl.Status.Phase != cnpgPhaseImageCatalog || cl.Spec.ImageCatalogRef == nil {
		return ""
	}
	return fmt.Sprintf(" (imageCatalogRef: %s): give the catalog an image for major %d, or name another catalog", describeImage(cl), cl.Spec.ImageCatalogRef.Major)
}

// wantedImage names the desired image, for messages, as describeImage
// names the running one.
func wantedImage(d *desired) string {
	if c := d.ImageCatalog; c != nil {
		return fmt.Sprintf("%s %q, major %d", c.Kind, c.Name, d.PostgresVersion)
	}
	return "image " + d.ImageName
}

// imageAgrees refuses an imageName whose tag runs another major than a
// postgresVersion set in the cluster or its class. The image decides what
// runs: a cluster whose class pins "postgresql:15.8" and that raises
// postgresVersion to 17 would upgrade nothing while its spec says 17, and
// the upgrade's preflight and backup would never be asked for. A tag
// without a major (a digest, "latest") is not compared; an unset
// postgresVersion leaves the tag alone in charge.
func imageAgrees(c *pgv1.PostgresCluster, class *pgv1.PostgresClusterClass, merged pgv1.ClusterSettings, image string) error {
	if merged.PostgresVersion == nil || image == "" {
		return nil
	}
	tag, ok := imageMajor(image)
	if !ok || tag == int(*merged.PostgresVersion) {
		return nil
	}
	from := func(inCluster bool) string {
		if inCluster {
			return "the cluster"
		}
		return fmt.Sprintf("class %q", class.Name)
	}
	return &specError{pgv1.ReasonImageMajorMismatch, fmt.Sprintf(
		"postgresVersion %d (from %s) disagrees with imageName %s (from %s), whose tag runs PostgreSQL %d: give imageName a tag of major %d, remove postgresVersion, or use an image catalog",
		*merged.PostgresVersion, from(c.Spec.PostgresVersion != nil), image, from(c.Spec.ImageName != ""), tag, *merged.PostgresVersion)}
}
