package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// Object size (issue 28): the largest object setpoint writes must stay
// constant in the number of databases on one PostgresCluster (Kubernetes
// objects stop near 1.5 MiB). Measured from the API server at the end of a
// repetition: every object of a kind setpoint writes, in the convergence
// namespace, as compact JSON the way the API server returns it one by one
// (apiVersion and kind included, managedFields included: they are stored
// with the object and count towards its limit). For the figure at N
// databases on one cluster: -clusters 1 -databases-per-cluster N.

// sizedKind is one kind setpoint writes: its list path (namespace %s) and
// whether only objects labelled as setpoint's count. PostgresClusters and
// PostgresDatabases are the user's objects, whose status (and finalizer)
// setpoint writes: all of them count.
type sizedKind struct {
	kind, apiVersion, path string
	ours                   bool
}

var sizedKinds = []sizedKind{
	{"PostgresCluster", "postgres.setpoint.dev/v1alpha1", "/apis/postgres.setpoint.dev/v1alpha1/namespaces/%s/postgresclusters", false},
	{"PostgresDatabase", "postgres.setpoint.dev/v1alpha1", "/apis/postgres.setpoint.dev/v1alpha1/namespaces/%s/postgresdatabases", false},
	{"Cluster", "postgresql.cnpg.io/v1", "/apis/postgresql.cnpg.io/v1/namespaces/%s/clusters", true},
	{"DatabaseRole", "postgresql.cnpg.io/v1", "/apis/postgresql.cnpg.io/v1/namespaces/%s/databaseroles", true},
	{"Database", "postgresql.cnpg.io/v1", "/apis/postgresql.cnpg.io/v1/namespaces/%s/databases", true},
	{"Pooler", "postgresql.cnpg.io/v1", "/apis/postgresql.cnpg.io/v1/namespaces/%s/poolers", true},
	{"ScheduledBackup", "postgresql.cnpg.io/v1", "/apis/postgresql.cnpg.io/v1/namespaces/%s/scheduledbackups", true},
	{"Backup", "postgresql.cnpg.io/v1", "/apis/postgresql.cnpg.io/v1/namespaces/%s/backups", true},
	{"Secret", "v1", "/api/v1/namespaces/%s/secrets", true},
	{"ConfigMap", "v1", "/api/v1/namespaces/%s/configmaps", true},
}

// kindSize is the largest object of one kind.
type kindSize struct {
	kind    string
	name    string
	bytes   int // compact JSON as stored
	noMF    int // the same without metadata.managedFields
	objects int // objects of the kind measured
}

// objectSize is the compact JSON size of one list item, with apiVersion
// and kind set as a single GET returns them (a list of a built-in kind
// leaves them out of its items), with and without managedFields, and its
// name.
func objectSize(item json.RawMessage, apiVersion, kind string) (name string, size, noMF int, err error) {
	d := json.NewDecoder(bytes.NewReader(item))
	d.UseNumber() // numbers as written, not through float64
	var obj map[string]any
	if err := d.Decode(&obj); err != nil {
		return "", 0, 0, err
	}
	if _, ok := obj["apiVersion"]; !ok {
		obj["apiVersion"] = apiVersion
	}
	if _, ok := obj["kind"]; !ok {
		obj["kind"] = kind
	}
	enc := func() (int, error) {
		var b bytes.Buffer
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(false) // the API server does not escape <, >, &
		if err := e.Encode(obj); err != nil {
			return 0, err
		}
		return b.Len() - 1, nil // Encode's newline
	}
	if size, err = enc(); err != nil {
		return "", 0, 0, err
	}
	md, _ := obj["metadata"].(map[string]any)
	if md != nil {
		name, _ = md["name"].(string)
		delete(md, "managedFields")
	}
	if noMF, err = enc(); err != nil {
		return "", 0, 0, err
	}
	return name, size, noMF, nil
}

// measureObjectSizes lists every kind of sizedKinds in ns through rc and
// returns the largest object of each kind present, largest first, and the
// most PostgresDatabases that name one cluster (the N of the figure). A
// kind the API server does not serve is skipped.
func measureObjectSizes(ctx context.Context, rc rest.Interface, ns string) ([]kindSize, int, error) {
	var out []kindSize
	perCluster := map[string]int{}
	for _, k := range sizedKinds {
		req := rc.Get().AbsPath(fmt.Sprintf(k.path, url.PathEscape(ns))).SetHeader("Accept", "application/json")
		if k.ours {
			req = req.Param("labelSelector", ownership.ManagedByLabel+"="+ownership.ManagedByValue)
		}
		raw, err := req.DoRaw(ctx)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, 0, fmt.Errorf("list %s: %w", k.kind, err)
		}
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, 0, fmt.Errorf("list %s: %w", k.kind, err)
		}
		if len(list.Items) == 0 {
			continue
		}
		ks := kindSize{kind: k.kind, objects: len(list.Items)}
		for _, it := range list.Items {
			name, size, noMF, err := objectSize(it, k.apiVersion, k.kind)
			if err != nil {
				return nil, 0, fmt.Errorf("%s: %w", k.kind, err)
			}
			if size > ks.bytes {
				ks.name, ks.bytes, ks.noMF = name, size, noMF
			}
			if k.kind == "PostgresDatabase" {
				var d struct {
					Spec struct {
						ClusterRef struct {
							Name string `json:"name"`
						} `json:"clusterRef"`
					} `json:"spec"`
				}
				if json.Unmarshal(it, &d) == nil {
					perCluster[d.Spec.ClusterRef.Name]++
				}
			}
		}
		out = append(out, ks)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].bytes > out[j].bytes })
	most := 0
	for _, n := range perCluster {
		most = max(most, n)
	}
	return out, most, nil
}

// objectSizeFigures adds the figures of sizes to fig and returns one line
// per kind, largest first, naming each kind's largest object.
func objectSizeFigures(fig map[string]float64, sizes []kindSize, perCluster int) []string {
	if len(sizes) == 0 {
		return nil
	}
	fig["largest_object_bytes"] = float64(sizes[0].bytes)
	fig["largest_object_bytes_no_managed_fields"] = float64(sizes[0].noMF)
	fig["object_size_databases_per_cluster"] = float64(perCluster)
	var lines []string
	for _, s := range sizes {
		lines = append(lines, fmt.Sprintf("%9d B  %-16s %s (%d B without managedFields; largest of %d)",
			s.bytes, s.kind, s.name, s.noMF, s.objects))
	}
	return lines
}
