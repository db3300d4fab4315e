package cluster

import (
	"fmt"
	"net"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// observeTopology sets status.topology from the spec's intent and what
// CNPG reports of the hand-over (cl is the CNPG Cluster this pass left):
//   - the spec names this cluster primary: Promoting while a token is
//     given that CNPG has not promoted with yet (status.lastPromotionToken),
//     else Primary;
//   - the spec names a peer: Demoting while the cluster was primary (the
//     previous status says Primary or Demoting) and CNPG has published no
//     demotion token, else Replica.
//
// The previous role is an observation, never intent: it only tells a
// demotion under way from a replica that never was primary.
func observeTopology(p *pass, cl *cnpgv1.Cluster) {
	t := p.cluster.Spec.Topology
	if t == nil {
		p.status.Topology = nil
		return
	}
	prev := p.status.Topology
	st := &pgv1.TopologyStatus{
		Timeline:           cl.Status.TimelineID,
		DemotionToken:      cl.Status.DemotionToken,
		LastPromotionToken: cl.Status.LastPromotionToken,
	}
	st.Role = topologyRole(p.cluster, cl, prev)
	if p.cluster.IsReplica() {
		st.Source = t.Primary
		for _, peer := range t.Peers {
			if peer.Name == t.Primary {
				st.SourceObjectStore, st.SourceServerName = peerObjectStore(p, peer), peerServerName(peer)
				if s := peer.Streaming; s != nil {
					st.SourceStreaming = net.JoinHostPort(s.Host, strconv.Itoa(int(streamingPort(s))))
				}
			}
		}
	}
	st.Since = roleSince(prev, st.Role, metav1.NewTime(p.deps.clock.Now()))
	p.status.Topology = st
}

func topologyRole(pc *pgv1.PostgresCluster, cl *cnpgv1.Cluster, prev *pgv1.TopologyStatus) pgv1.TopologyRole {
	t := pc.Spec.Topology
	if t.Primary == pc.Name {
		if t.PromotionToken != "" && cl.Status.LastPromotionToken != t.PromotionToken {
			return pgv1.TopologyRolePromoting
		}
		return pgv1.TopologyRolePrimary
	}
	wasPrimary := prev != nil && (prev.Role == pgv1.TopologyRolePrimary || prev.Role == pgv1.TopologyRoleDemoting)
	if wasPrimary && cl.Status.DemotionToken == "" {
		return pgv1.TopologyRoleDemoting
	}
	return pgv1.TopologyRoleReplica
}

// topologyMessage is what ProvisionerReady adds about the hand-over
// where one is under way or asks something of the user.
func topologyMessage(p *pass) string {
	st := p.status.Topology
	if st == nil {
		return ""
	}
	switch st.Role {
	case pgv1.TopologyRoleDemoting:
		return fmt.Sprintf("; demoting to a replica of %s: waiting for CloudNativePG's demotion token", st.Source)
	case pgv1.TopologyRolePromoting:
		return "; promoting: CloudNativePG waits until the replay reaches the promotion token's position"
	case pgv1.TopologyRoleReplica:
		m := fmt.Sprintf("; replica of %s, replaying its archive (ObjectStore %q, folder %q)", st.Source, st.SourceObjectStore, st.SourceServerName)
		if st.SourceStreaming != "" {
			m += " and streaming from " + st.SourceStreaming
		}
		if st.DemotionToken != "" {
			m += "; demoted: give status.topology.demotionToken to " + st.Source + " as its topology.promotionToken"
		}
		return m
	}
	return ""
}

// roleSince keeps the time of a role that did not change: status is
// written only when something in it did.
func roleSince(prev *pgv1.TopologyStatus, role pgv1.TopologyRole, now metav1.Time) *metav1.Time {
	if prev != nil && prev.Role == role && prev.Since != nil {
		return prev.Since
	}
	return &now
}
