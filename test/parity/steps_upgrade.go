package parity

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// CNPG's offline in-place major upgrade, seen as setpoint sees it: the
// Cluster's phases (with phaseReason and the Ready condition) and
// pgDataImageInfo.majorVersion, step by step, and the upgrade Job CNPG
// runs pg_upgrade in. The Cluster is written directly, as a user of CNPG
// would (setpoint's own upgrade path waits on its preflight and backup,
// which are not CNPG's to record).

const (
	upgradeName = "upgrade"
	// upgradeCatalog is the real node's ClusterImageCatalog (test/realcnpg
	// ImageCatalog), which serves its PostgreSQL 15 and 17 images. Where
	// the site has none (the stand-in, which runs no image) the step makes
	// one of placeholder names.
	upgradeCatalog = "postgresql"
)

// majorUpgradeStep: a one-instance Cluster on major 15 of the catalog,
// healthy; its imageCatalogRef raised to 17; every status CNPG writes
// until it is healthy on 17 again.
func majorUpgradeStep(t *testing.T, r *run) {
	ns := r.site.Namespace
	ensureUpgradeCatalog(t, r)
	cluster := upgradeCluster(r)
	if _, err := r.site.PG.CNPGV1().Clusters(ns).Create(t.Context(), cluster, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatalf("create Cluster %s: %v", upgradeName, err)
	}
	t.Cleanup(func() {
		_ = r.site.PG.CNPGV1().Clusters(ns).Delete(context.WithoutCancel(t.Context()), upgradeName, metav1.DeleteOptions{})
	})
	var start *cnpgv1.Cluster
	r.waitFor(t, "Cluster "+upgradeName+" healthy on 15", func(ctx context.Context) (bool, string, error) {
		c, err := r.site.PG.CNPGV1().Clusters(ns).Get(ctx, upgradeName, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		start = c
		return c.Status.Phase == "Cluster in healthy state" && dataMajor(c) == 15, fmt.Sprintf("%s %+v", c.Status.Phase, c.Status.PGDataImageInfo), nil
	})

	ctx, cancel := context.WithTimeout(t.Context(), r.site.Timeout)
	defer cancel()
	jobs := watchUpgradeJob(ctx, r)
	patch := fmt.Sprintf(`{"spec":{"imageCatalogRef":{"apiGroup":"postgresql.cnpg.io","kind":"ClusterImageCatalog","name":%q,"major":17}}}`, upgradeCatalog)
	if _, err := r.site.PG.CNPGV1().Clusters(ns).Patch(t.Context(), upgradeName, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("raise the major: %v", err)
	}
	steps, err := upgradeSteps(ctx, r, start)
	cancel()
	job := jobs()
	if err != nil {
		t.Fatalf("the upgrade on %s: %v (steps so far: %s)", r.site.Name, err, Canonical(steps))
	}
	r.observe(t, "major upgrade/Cluster steps", func(context.Context) (Value, error) { return steps, nil })
	r.observe(t, "major upgrade/Job", func(context.Context) (Value, error) { return job, nil })
	r.observe(t, "major upgrade/Cluster", r.readCluster(upgradeName))
}

// upgradeCluster is the step's Cluster, fitted to the site as a class
// would be (its storage and parameters).
func upgradeCluster(r *run) *cnpgv1.Cluster {
	settings := pgv1.ClusterSettings{}
	r.site.Fit(&settings)
	storage := &cnpgv1.StorageConfiguration{Size: "1Gi"}
	if s := settings.Storage; s != nil {
		if s.Size != nil {
			storage.Size = s.Size.String()
		}
		storage.StorageClass = s.StorageClass
	}
	if _, err := resource.ParseQuantity(storage.Size); err != nil {
		storage.Size = "1Gi"
	}
	var pgConf *cnpgv1.PostgresConfiguration
	if len(settings.PostgreSQLConfig) > 0 {
		pgConf = &cnpgv1.PostgresConfiguration{Parameters: settings.PostgreSQLConfig}
	}
	return &cnpgv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: upgradeName, Namespace: r.site.Namespace},
		Spec: cnpgv1.ClusterSpec{
			Instances: 1,
			ImageCatalogRef: &cnpgv1.ImageCatalogRef{APIGroup: ptr.To("postgresql.cnpg.io"), Kind: "ClusterImageCatalog",
				Name: upgradeCatalog, Major: 15},
			Storage:               storage,
			PostgresConfiguration: pgConf,
		},
	}
}

// ensureUpgradeCatalog makes the catalog when the site has none, and
// removes it afterwards. The catalogs have no typed client here: the
// CNPG client's REST client reaches them by path.
func ensureUpgradeCatalog(t *testing.T, r *run) {
	rc := r.site.PG.CNPGV1().RESTClient()
	path := "/apis/postgresql.cnpg.io/v1/clusterimagecatalogs"
	err := rc.Get().AbsPath(path, upgradeCatalog).Do(t.Context()).Error()
	if err == nil {
		return
	}
	if !apierrors.IsNotFound(err) {
		t.Fatalf("get ClusterImageCatalog %s: %v", upgradeCatalog, err)
	}
	cat, err := json.Marshal(map[string]any{
		"apiVersion": "postgresql.cnpg.io/v1", "kind": "ClusterImageCatalog",
		"metadata": map[string]any{"name": upgradeCatalog},
		"spec": map[string]any{"images": []any{
			map[string]any{"major": 15, "image": "parity.invalid/postgresql:15.0"},
			map[string]any{"major": 17, "image": "parity.invalid/postgresql:17.0"},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	err = rc.Post().AbsPath(path).SetHeader("Content-Type", "application/json").Body(cat).Do(t.Context()).Error()
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create ClusterImageCatalog %s: %v", upgradeCatalog, err)
	}
	t.Cleanup(func() {
		_ = rc.Delete().AbsPath(path, upgradeCatalog).Do(context.WithoutCancel(t.Context())).Error()
	})
}

func dataMajor(c *cnpgv1.Cluster) int {
	if c.Status.PGDataImageInfo == nil {
		return 0
	}
	return c.Status.PGDataImageInfo.MajorVersion
}

// upgradeSteps follows every status write of the Cluster from start (as
// the watch delivers each resourceVersion, none is missed) and keeps each
// distinct step: phase, phaseReason, Ready and the data's major, until it
// is healthy on 17.
func upgradeSteps(ctx context.Context, r *run, start *cnpgv1.Cluster) ([]any, error) {
	steps := []any{upgradeStepOf(start)}
	rv := start.ResourceVersion
	for {
		w, err := r.site.PG.CNPGV1().Clusters(r.site.Namespace).Watch(ctx, metav1.ListOptions{
			FieldSelector: fields.OneTermEqualSelector("metadata.name", upgradeName).String(), ResourceVersion: rv,
		})
		if err != nil {
			return steps, fmt.Errorf("watch Cluster %s: %w", upgradeName, err)
		}
		done, err := func() (bool, error) {
			defer w.Stop()
			for ev := range w.ResultChan() {
				if ev.Type == watch.Error {
					return false, fmt.Errorf("watch Cluster %s: %v", upgradeName, apierrors.FromObject(ev.Object))
				}
				c, ok := ev.Object.(*cnpgv1.Cluster)
				if !ok {
					continue
				}
				rv = c.ResourceVersion
				s := upgradeStepOf(c)
				if Canonical(s) != Canonical(steps[len(steps)-1]) {
					steps = append(steps, s)
				}
				if c.Status.Phase == "Cluster in healthy state" && dataMajor(c) == 17 {
					return true, nil
				}
			}
			return false, ctx.Err()
		}()
		if done || err != nil {
			return steps, err
		}
		// The server ended the watch: go on from the last version seen.
		time.Sleep(100 * time.Millisecond)
	}
}

func upgradeStepOf(c *cnpgv1.Cluster) map[string]any {
	ready := "unset"
	if cond := meta.FindStatusCondition(c.Status.Conditions, "Ready"); cond != nil {
		ready = string(cond.Status) + "/" + cond.Reason
	}
	return map[string]any{
		"phase": c.Status.Phase, "phaseReason": c.Status.PhaseReason,
		"ready": ready, "pgDataMajor": float64(dataMajor(c)),
	}
}

// watchUpgradeJob looks for the upgrade Job until ctx ends; the function
// it returns gives the Job's shape as first seen (nil if never seen).
func watchUpgradeJob(ctx context.Context, r *run) func() Value {
	var mu sync.Mutex
	var seen Value
	done := make(chan struct{})
	go func() {
		defer close(done)
		name := upgradeName + "-1-major-upgrade"
		for ctx.Err() == nil {
			j, err := r.site.Kube.BatchV1().Jobs(r.site.Namespace).Get(ctx, name, metav1.GetOptions{})
			if err == nil {
				mu.Lock()
				seen = jobShape(j)
				mu.Unlock()
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	return func() Value {
		<-done
		mu.Lock()
		defer mu.Unlock()
		return seen
	}
}

// jobShape is what identifies the upgrade Job and what a reader of it
// relies on: name, CNPG's labels, its controller, no retry, the
// container that runs pg_upgrade and whether it runs the target image.
func jobShape(j *batchv1.Job) Value {
	owner := "none"
	if ref := metav1.GetControllerOf(j); ref != nil {
		owner = ref.Kind + "/" + ref.Name
	}
	var containers []any
	for _, c := range j.Spec.Template.Spec.Containers {
		containers = append(containers, c.Name)
	}
	backoff := any(nil)
	if j.Spec.BackoffLimit != nil {
		backoff = float64(*j.Spec.BackoffLimit)
	}
	return map[string]any{
		"name":         j.Name,
		"labels":       map[string]any{"cnpg.io/cluster": j.Labels["cnpg.io/cluster"], "cnpg.io/jobRole": j.Labels["cnpg.io/jobRole"], "cnpg.io/instanceName": j.Labels["cnpg.io/instanceName"]},
		"controller":   owner,
		"backoffLimit": backoff,
		"containers":   containers,
	}
}
