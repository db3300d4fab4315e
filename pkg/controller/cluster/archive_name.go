package cluster

import (
	"fmt"
	"strconv"
	"strings"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// archiveServerName is the folder of the object store this cluster
// archives its WAL and base backups under (barman-cloud's serverName). It
// is decided once and then kept, because moving a running cluster to
// another folder would split its backup history. It comes from what
// setpoint itself wrote and from the spec, never from status (which only
// reports it as status.backupStatus.serverName: a status anyone with
// status access can edit must not point the archive at another folder):
//
//  1. the one the CNPG Cluster already archives under, when it is ours or
//     retained for us (a new PostgresCluster adopting a retained CNPG
//     Cluster goes on in the folder it kept);
//  2. else, for a cluster restored from its own name's backups (the
//     source was deleted and is re-created), <name>-<first 8 characters of
//     its UID>: the source's folder is not empty, and barman-cloud refuses
//     to archive a new cluster into a folder that holds WAL. The UID makes
//     it stable for this object and distinct from any earlier one;
//  3. else the cluster's name;
//
// and then, across a major upgrade, a folder of its own (upgradeFolder).
func archiveServerName(p *pass) string {
	name := cnpgServerName(p)
	if name == "" {
		name = firstServerName(p.cluster)
	}
	return upgradeFolder(p, name)
}

// upgradeFolder moves the archive to <name>-pg<major> when the pass asks
// CloudNativePG for a major above the one the data runs (an upgrade
// starts), and back to name when it asks for the data's major again after
// an upgrade that never ran (the rollback of a failed pg_upgrade).
// pg_upgrade makes a new system with timeline 1: its WAL would collide
// with the old system's files of timeline 1 in the same folder, which
// barman-cloud refuses to overwrite (CloudNativePG's major upgrade guide
// says to change serverName for this). The old folder keeps the backups
// of the old major, the pre-upgrade backup among them.
func upgradeFolder(p *pass, name string) string {
	cl := p.observedCNPG()
	if cl == nil || p.want == nil {
		return name
	}
	data, ok := dataMajor(cl)
	applied, ok2 := appliedMajor(p)
	if !ok || !ok2 {
		return name
	}
	if applied > data {
		if suffix := fmt.Sprintf("-pg%d", applied); !strings.HasSuffix(name, suffix) {
			return name + suffix
		}
		return name
	}
	// A suffix for a major the data never reached: the attempt failed.
	// Only on a name an upgrade made: a cluster named shop-pg18 keeps its
	// folder.
	if i := strings.LastIndex(name, "-pg"); i > 0 && name != firstServerName(p.cluster) {
		if n, err := strconv.Atoi(name[i+3:]); err == nil && n > data {
			return name[:i]
		}
	}
	return name
}

// firstServerName is the serverName a cluster starts archiving under
// (rules 2 and 3 of archiveServerName).
func firstServerName(pc *pgv1.PostgresCluster) string {
	if r := pc.Spec.Restore; r != nil && r.Source == pc.Name {
		return restoredServerName(pc.Name, string(pc.UID))
	}
	return pc.Name
}

// restoredServerName is name with the first 8 characters of uid.
func restoredServerName(name, uid string) string {
	return name + "-" + uid[:min(8, len(uid))]
}

// cnpgServerName is the serverName of the barman-cloud plugin in the
// observed CNPG Cluster's spec, when setpoint may take it as its own.
func cnpgServerName(p *pass) string {
	cur := p.observedCNPG()
	if cur == nil || p.owner().Judge(cur) == ownership.NotOurs {
		return ""
	}
	return pluginServerName(cur)
}
