package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// Annotations on a CNPG Cluster setpoint created again after a loss. Later
// passes read them back from the CNPG Cluster (never from status): its
// bootstrap must stay as it was created, and they say which request the
// cluster answered.
const (
	recreatedFromAnnotation = "postgres.setpoint.dev/recreated-from" // the lost CNPG Cluster's UID
	recreatedAsAnnotation   = "postgres.setpoint.dev/recreated-as"   // the request: empty or latest-backup
	recoveredFromAnnotation = "postgres.setpoint.dev/recovered-from" // the folder recovered (latest-backup)
)

// recreation is a CNPG Cluster created again after a loss.
type recreation struct {
	mode, lostUID, from string
	// serverName is the new cluster's archive folder, set only in the pass
	// that creates it; later passes read it from the CNPG Cluster's plugin
	// parameters (archiveServerName).
	serverName string
}

func recreationOf(cl *cnpgv1.Cluster) *recreation {
	a := cl.Annotations
	if a[recreatedAsAnnotation] == "" {
		return nil
	}
	return &recreation{mode: a[recreatedAsAnnotation], lostUID: a[recreatedFromAnnotation], from: a[recoveredFromAnnotation]}
}

func (r *recreation) annotations() map[string]string {
	m := map[string]string{recreatedAsAnnotation: r.mode, recreatedFromAnnotation: r.lostUID}
	if r.from != "" {
		m[recoveredFromAnnotation] = r.from
	}
	return m
}

// planRecreate turns a request into a recreation, or says why it cannot
// be carried out. The new cluster archives under <name>-<first 8
// characters of the lost cluster's UID>: the lost one's folder holds WAL,
// where barman-cloud refuses to archive a new cluster (and two histories
// would mix).
func planRecreate(p *pass, l *loss, request string) (*recreation, string) {
	if request != pgv1.RecreateEmpty && request != pgv1.RecreateLatestBackup {
		return nil, fmt.Sprintf("%s=%q: the value must be %q or %q", pgv1.RecreateAnnotation, request, pgv1.RecreateEmpty, pgv1.RecreateLatestBackup)
	}
	if l.uid == "" {
		return nil, fmt.Sprintf("setpoint has no record of the lost cluster's UID (its ConfigMap %q is gone too), which names the new cluster's archive folder: "+
			"delete this PostgresCluster and create it again, with spec.restore to recover from its backups", p.name(configMapSuffix))
	}
	r := &recreation{mode: request, lostUID: l.uid, serverName: restoredServerName(p.cluster.Name, l.uid)}
	if request == pgv1.RecreateLatestBackup {
		if msg := latestBackupRefusal(p, l); msg != "" {
			return nil, msg
		}
		r.from = l.serverName
	}
	return r, ""
}

// latestBackupRefusal says why the lost cluster's folder cannot be
// recovered from, or returns "". Whether a backup exists is what the
// barman-cloud plugin reports in the ObjectStore setpoint owns.
func latestBackupRefusal(p *pass, l *loss) string {
	store := naming.ObjectStore(p.cluster.Name)
	os := p.obs.objectStore
	switch {
	case l.serverName == "":
		return fmt.Sprintf("there is no record that the lost cluster archived anywhere (the ConfigMap %q records none)", p.name(configMapSuffix))
	case p.want.ObjectStore == nil:
		return "the cluster has no object store configured to recover from"
	case os == nil || !ownership.IsControlledBy(os, p.cluster.UID):
		return fmt.Sprintf("the ObjectStore %q is not there", store)
	case l.root != "" && os.Spec.Configuration.DestinationPath != l.root:
		return fmt.Sprintf("the ObjectStore %q points at %q now; the lost cluster archived under %q", store, os.Spec.Configuration.DestinationPath, l.root)
	}
	if w, ok := os.Status.ServerRecoveryWindow[l.serverName]; !ok || w.LastSuccessfulBackupTime == nil {
		return fmt.Sprintf("the ObjectStore %q reports no completed backup of folder %q, so there is nothing to recover; use %s=%s to start empty",
			store, l.serverName, pgv1.RecreateAnnotation, pgv1.RecreateEmpty)
	}
	return ""
}

// withRecreate makes the desired spec that of a recreated cluster:
// recovered from the lost folder (latest-backup, to the end of its
// archived WAL) or bootstrapped empty, whatever spec.restore says (that
// restore was the lost cluster's beginning, not this one's).
func withRecreate(p *pass, spec *cnpgac.ClusterSpecApplyConfiguration) {
	r := p.provisioner.recreate
	if r == nil {
		return
	}
	spec.Bootstrap, spec.ExternalClusters = nil, nil
	p.status.RestoredFrom = nil
	if r.mode == pgv1.RecreateLatestBackup {
		store := naming.ObjectStore(p.cluster.Name)
		spec.WithBootstrap(cnpgac.BootstrapConfiguration().WithRecovery(cnpgac.BootstrapRecovery().WithSource(restoreSourceName)))
		spec.WithExternalClusters(cnpgac.ExternalCluster().WithName(restoreSourceName).WithPluginConfiguration(
			cnpgac.PluginConfiguration().WithName(barmanPlugin).
				WithParameters(map[string]string{"barmanObjectName": store, "serverName": r.from})))
		p.status.RestoredFrom = restoredFrom(p, &pgv1.RestoreSpec{Source: r.from}, store)
	}
	if r.serverName == "" {
		return
	}
	for i := range spec.Plugins {
		if pl := &spec.Plugins[i]; pl.Name != nil && *pl.Name == barmanPlugin {
			pl.Parameters["serverName"] = r.serverName
		}
	}
}

// recreated finishes a request once its CNPG Cluster exists: an Event,
// and the annotation removed.
func recreated(ctx context.Context, p *pass) error {
	r := p.provisioner.recreate
	how := "empty"
	if r.mode == pgv1.RecreateLatestBackup {
		how = fmt.Sprintf("from the latest backup and archived WAL of folder %q", r.from)
	}
	p.deps.recorder.Eventf(p.cluster, corev1.EventTypeNormal, pgv1.EventRecreated,
		"created CNPG Cluster %s again, %s, after CNPG Cluster UID %s was lost (%s=%s); it archives under %q",
		p.cluster.Name, how, r.lostUID, pgv1.RecreateAnnotation, r.mode, r.serverName)
	klog.FromContext(ctx).Info("Recreated lost CNPG Cluster", "mode", r.mode, "lostUID", r.lostUID, "serverName", r.serverName)
	return removeRequest(ctx, p, r.mode)
}

// removeRequest deletes the recreate annotation if it still says request
// (a JSON patch test): a request changed meanwhile is the next pass's.
func removeRequest(ctx context.Context, p *pass, request string) error {
	path := "/metadata/annotations/" + strings.ReplaceAll(pgv1.RecreateAnnotation, "/", "~1")
	patch := fmt.Appendf(nil, `[{"op":"test","path":%q,"value":%q},{"op":"remove","path":%q}]`, path, request, path)
	_, err := p.deps.pg.PostgresV1alpha1().PostgresClusters(p.cluster.Namespace).Patch(ctx, p.cluster.Name,
		types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
	var status apierrors.APIStatus
	if err == nil || apierrors.IsNotFound(err) || errors.As(err, &status) && status.Status().Code == http.StatusUnprocessableEntity {
		return nil // removed, or no longer there as it was
	}
	return fmt.Errorf("remove %s annotation: %w", pgv1.RecreateAnnotation, err)
}
