package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// The preflight asks the target image itself which extensions it has: a
// short-lived Pod of that image, in the cluster's namespace, lists which
// of the declared extensions have no control file in the major's
// extension folder (Debian's layout, which CloudNativePG's images and the
// node's share) and writes them to its termination message. No catalog
// of an image's contents exists to ask instead, and a catalog entry's
// extensions (CNPG's image volumes) are not what the image holds.
//
// The Pod runs as nobody, with no service account token, no privilege
// and a deadline; setpoint deletes it once read, and its owner reference
// takes it with the cluster. It runs under the CNPG Cluster's
// ServiceAccount, which CloudNativePG's instances run under and which
// carries the image pull secrets CloudNativePG gives them: an image from
// a private (or air-gapped) registry is pulled by the probe exactly when
// CloudNativePG could pull it.

// probeScript lists the extensions, given as its arguments, that have no
// control file; it fails when the folder itself is missing (an image of
// another layout), so a missing folder is never read as "all present".
const probeScript = `d=/usr/share/postgresql/$0/extension
if [ ! -d "$d" ]; then echo "no folder $d in the image" >/dev/termination-log; exit 3; fi
for e in "$@"; do [ -f "$d/$e.control" ] || echo "$e"; done >/dev/termination-log`

// probeDeadline bounds the probe Pod's run, image pull included.
const probeDeadline = 300

// probeLabel marks the probe Pods.
const probeLabel = "postgres.setpoint.dev/upgrade-probe"

// kubeletPullFailures are the kubelet's reasons for a container waiting
// on an image it cannot pull (kubelet's images package): Kubernetes'
// words, not setpoint's.
var kubeletPullFailures = []string{"ErrImagePull", "ImagePullBackOff", "InvalidImageName"}

// probeResult is what the probe said, or where it stands.
type probeResult struct {
	done bool
	// waiting says what the probe waits for, when not done.
	waiting string
	image   string
	missing []string
	// obstacles are the probe's own failures (the image cannot be pulled
	// or has another layout).
	obstacles []string
}

// probeExtensions runs (or reads) the probe Pod of this attempt and
// returns the extensions of exts the target image lacks.
func (p *pass) probeExtensions(ctx context.Context, rec *pgv1.MajorUpgradeStatus, exts []string) (probeResult, error) {
	image, err := p.targetImage(ctx, int(rec.To))
	if err != nil {
		var missing *catalogMissError
		if errors.As(err, &missing) {
			return probeResult{done: true, obstacles: []string{missing.Error()}}, nil
		}
		return probeResult{}, err
	}
	name := p.name(fmt.Sprintf("-upgrade-probe-%d", rec.To))
	client := p.deps.kube.CoreV1().Pods(p.cluster.Namespace)
	cur, err := claim(ctx, p, "Pod", (*corev1.Pod)(nil), client, name)
	var conflict *ownership.ConflictError
	if errors.As(err, &conflict) {
		return probeResult{done: true, image: image, obstacles: []string{conflict.Error()}}, nil
	}
	if err != nil {
		return probeResult{}, err
	}
	if cur != nil && (cur.Spec.Containers[0].Image != image || strings.Join(cur.Spec.Containers[0].Args[1:], " ") != strings.Join(exts, " ")) {
		// Probed for another image or other extensions: ask again.
		return probeResult{waiting: "probing the target image again"}, p.deleteProbe(ctx, cur)
	}
	if cur == nil {
		if _, err := client.Create(ctx, p.probePod(name, image, int(rec.To), exts), metav1.CreateOptions{FieldManager: fieldManager}); err != nil && !apierrors.IsAlreadyExists(err) {
			return probeResult{}, fmt.Errorf("create upgrade probe Pod %s: %w", name, err)
		}
		return probeResult{waiting: fmt.Sprintf("Pod %s checks the image %s for the extensions %s", name, image, strings.Join(exts, ", "))}, nil
	}
	res := readProbe(cur, image)
	if res.done {
		if err := p.deleteProbe(ctx, cur); err != nil {
			return probeResult{}, err
		}
	}
	return res, nil
}

// readProbe reads the probe Pod's outcome from its status.
func readProbe(pod *corev1.Pod, image string) probeResult {
	res := probeResult{image: image}
	for _, s := range pod.Status.ContainerStatuses {
		if w := s.State.Waiting; w != nil && slices.Contains(kubeletPullFailures, w.Reason) {
			res.done = true
			res.obstacles = append(res.obstacles, fmt.Sprintf("the PostgreSQL image %s cannot be pulled: %s", image, w.Message))
			return res
		}
		if t := s.State.Terminated; t != nil {
			res.done = true
			msg := strings.TrimSpace(t.Message)
			if t.ExitCode != 0 {
				res.obstacles = append(res.obstacles, fmt.Sprintf("the extension check of image %s failed (exit %d): %s", image, t.ExitCode, msg))
				return res
			}
			if msg != "" {
				res.missing = strings.Fields(msg)
			}
			return res
		}
	}
	if pod.Status.Phase == corev1.PodFailed {
		res.done = true
		res.obstacles = append(res.obstacles, fmt.Sprintf("the extension check of image %s did not run: %s %s", image, pod.Status.Reason, pod.Status.Message))
		return res
	}
	res.waiting = fmt.Sprintf("Pod %s checks the image %s for the declared extensions", pod.Name, image)
	return res
}

func (p *pass) deleteProbe(ctx context.Context, pod *corev1.Pod) error {
	err := p.deps.kube.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &pod.UID}, GracePeriodSeconds: ptr.To[int64](0)})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete upgrade probe Pod %s: %w", pod.Name, err)
	}
	return nil
}

// probePod is the probe of image for the extensions exts of major.
func (p *pass) probePod(name, image string, major int, exts []string) *corev1.Pod {
	res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("32Mi")}
	labels := ownership.ManagedLabels(ownership.ClusterLabel, p.cluster.Name)
	labels[probeLabel] = fmt.Sprint(major)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: p.cluster.Namespace, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(p.cluster, gvk)}},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			ServiceAccountName:            cnpgServiceAccount(p.observedCNPG()),
			AutomountServiceAccountToken:  ptr.To(false),
			ActiveDeadlineSeconds:         ptr.To[int64](probeDeadline),
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65534),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{
				Name: "extensions", Image: image,
				Command: []string{"/bin/sh", "-c", probeScript},
				// $0 is the major, then one argument per extension: never
				// spliced into the script.
				Args:                     append([]string{fmt.Sprint(major)}, exts...),
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
				Resources:                corev1.ResourceRequirements{Requests: res, Limits: res},
				SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
			}},
		},
	}
}

// catalogMissError: the catalog the cluster names has no image for the
// target major (or is missing): a preflight obstacle, not an API error.
type catalogMissError struct{ msg string }

func (e *catalogMissError) Error() string { return e.msg }

// targetImage is the image CloudNativePG will run for major: the
// catalog's entry for it, or the image the spec names.
func (p *pass) targetImage(ctx context.Context, major int) (string, error) {
	ref := p.want.ImageCatalog
	if ref == nil {
		return p.want.ImageName, nil
	}
	req := p.deps.pg.CNPGV1().RESTClient().Get()
	if ref.Kind == pgv1.ImageCatalogKindNamespaced {
		req = req.Namespace(p.cluster.Namespace).Resource("imagecatalogs")
	} else {
		req = req.Resource("clusterimagecatalogs")
	}
	raw, err := req.Name(ref.Name).Do(ctx).Raw()
	if apierrors.IsNotFound(err) {
		return "", &catalogMissError{fmt.Sprintf("%s %q does not exist", ref.Kind, ref.Name)}
	}
	if err != nil {
		return "", fmt.Errorf("read %s %s: %w", ref.Kind, ref.Name, err)
	}
	var cat struct {
		Spec struct {
			Images []struct {
				Major int    `json:"major"`
				Image string `json:"image"`
			} `json:"images"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(raw, &cat); err != nil {
		return "", fmt.Errorf("read %s %s: %w", ref.Kind, ref.Name, err)
	}
	for _, im := range cat.Spec.Images {
		if im.Major == major {
			return im.Image, nil
		}
	}
	return "", &catalogMissError{fmt.Sprintf("%s %q has no image for PostgreSQL %d", ref.Kind, ref.Name, major)}
}

// cnpgServiceAccount is the ServiceAccount CloudNativePG runs the
// instances of cl under: the Cluster's name (setpoint never sets
// spec.serviceAccountName).
func cnpgServiceAccount(cl *cnpgv1.Cluster) string {
	if cl == nil {
		return ""
	}
	return cl.Name
}
