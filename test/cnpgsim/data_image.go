package cnpgsim

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// status.pgDataImageInfo: the image (and its major) that last ran on the
// primary's data, as CNPG 1.30's reconcileImage keeps it
// (internal/controller/cluster_image.go). The server is always the
// host's PostgreSQL 15 whatever the major says (doc.go).

// requestedImageInfo is CNPG's getRequestedImageInfo: the image with its
// major — imageCatalogRef's major, or the imageName tag's leading number
// (CNPG's version.FromTag).
func (s *Simulator) requestedImageInfo(c *cnpgv1.Cluster) (cnpgv1.ImageInfo, error) {
	image, err := s.requestedImage(c)
	if err != nil {
		return cnpgv1.ImageInfo{}, err
	}
	if r := c.Spec.ImageCatalogRef; r != nil {
		return cnpgv1.ImageInfo{Image: image, MajorVersion: r.Major}, nil
	}
	major, err := tagMajor(image)
	if err != nil {
		return cnpgv1.ImageInfo{}, fmt.Errorf("cannot parse version from image %s: %w", image, err)
	}
	return cnpgv1.ImageInfo{Image: image, MajorVersion: major}, nil
}

// tagMajor is the leading number of an image reference's tag ("15",
// "17.2", "16-minimal-trixie"); a digest after the tag is ignored.
func tagMajor(image string) (int, error) {
	ref, _, _ := strings.Cut(image, "@")
	tag := ""
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		tag = ref[i+1:]
	}
	end := 0
	for end < len(tag) && tag[end] >= '0' && tag[end] <= '9' {
		end++
	}
	major, err := strconv.Atoi(tag[:end])
	if err != nil {
		return 0, fmt.Errorf("tag %q does not start with a version number", tag)
	}
	return major, nil
}

// reconcileDataImage is CNPG's reconcileImage after the image is picked:
//   - no pgDataImageInfo yet (a new Cluster, before its first instance
//     runs): it becomes the requested image and major (case 1);
//   - the same image: nothing (case 2);
//   - a lower major: an error, and the sync goes no further (CNPG's
//     webhook refuses such a spec before it gets here);
//   - a higher major: nothing here: the image waits for the major upgrade
//     (major_upgrade.go), which moves pgDataImageInfo when its Job
//     succeeds (case 3);
//   - another image of the same major (a minor update, or a catalog's new
//     image): pgDataImageInfo follows it at once (case 4). No rolling
//     update is played: the server is the host's anyway.
//
// As in CNPG this is a status write of its own, before anything else.
func (r *clusterRun) reconcileDataImage(ctx context.Context, want cnpgv1.ImageInfo) error {
	next, err := nextDataImage(r.cluster.Status.PGDataImageInfo, want)
	if next == nil || err != nil {
		return err
	}
	return r.setDataImage(ctx, next)
}

// nextDataImage is the decision of reconcileDataImage: the new
// pgDataImageInfo, or nil to keep it.
func nextDataImage(cur *cnpgv1.ImageInfo, want cnpgv1.ImageInfo) (*cnpgv1.ImageInfo, error) {
	switch {
	case cur == nil:
	case want.Image == cur.Image:
		return nil, nil
	case want.MajorVersion < cur.MajorVersion:
		return nil, fmt.Errorf("cannot downgrade the PostgreSQL major version from %d to %d", cur.MajorVersion, want.MajorVersion)
	case want.MajorVersion > cur.MajorVersion:
		return nil, nil
	}
	return &want, nil
}

// setDataImage writes status.pgDataImageInfo alone.
func (r *clusterRun) setDataImage(ctx context.Context, info *cnpgv1.ImageInfo) error {
	next := r.cluster.DeepCopy()
	next.Status.PGDataImageInfo = info
	updated, err := r.s.cnpg.CNPGV1().Clusters(next.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{FieldManager: r.s.opts.FieldManager})
	if err != nil {
		return fmt.Errorf("update cluster status (pgDataImageInfo): %w", err)
	}
	r.cluster = updated
	return nil
}

// dataMajor is pgDataImageInfo's major, 0 when there is none.
func dataMajor(c *cnpgv1.Cluster) int {
	if c.Status.PGDataImageInfo == nil {
		return 0
	}
	return c.Status.PGDataImageInfo.MajorVersion
}
