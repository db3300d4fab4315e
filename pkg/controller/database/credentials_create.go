package database

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// createMissingSecrets creates the generated Secrets this pass will find
// missing side by side rather than one after the other: they are
// independent writes, and a new database's first pass waited for each
// round trip in turn — on a busy API server the longest part of the pass,
// and the cluster reads the role claim from these very Secrets, so the
// sooner they exist, the more claims of databases created together reach
// their cluster in one pass. What was created lands in p.obs.secrets,
// where credential finds it; a create that failed is left to credential,
// which tries again and reports the error.
func (p *pass) createMissingSecrets(ctx context.Context) {
	type missing struct{ name, role string }
	var todo []missing
	for _, d := range p.db.Spec.Databases {
		for _, c := range credentialsOf(d, namesOf(p.db, d.Name)) {
			if c.external == "" && c.generated != "" && p.obs.secrets[c.generated] == nil {
				todo = append(todo, missing{c.generated, c.role})
			}
		}
	}
	if len(todo) < 2 {
		return // nothing to overlap
	}
	created := make([]*corev1.Secret, len(todo))
	var wg sync.WaitGroup
	for i, m := range todo {
		wg.Go(func() { created[i], _ = p.createSecret(ctx, m.name, m.role) })
	}
	wg.Wait()
	for i, m := range todo {
		if created[i] != nil {
			p.obs.secrets[m.name] = created[i]
		}
	}
}
