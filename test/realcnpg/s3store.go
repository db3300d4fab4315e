package realcnpg

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/test/envtest"
	"github.com/setpoint-dev/setpoint/test/node"
)

// The S3-compatible store inside the node (the s3store image: gofakes3 in
// memory), which the barman-cloud sidecars archive into. One bucket,
// S3Bucket; any credentials are accepted. It serves plain HTTP on s3Port
// (S3Endpoint) and the same buckets over HTTPS on s3TLSPort
// (S3TLSEndpoint, s3store_tls.go).
const (
	S3Namespace = "backup-store"
	s3Name      = "s3store"
	s3Port      = 9000
	S3Bucket    = "backups"
)

// S3Endpoint is the store's URL for Pods of the node.
const S3Endpoint = "http://s3store.backup-store.svc.cluster.local:9000"

// ApplyS3Store creates the store's namespace, TLS Secret, Deployment and
// Service, without waiting for it (WaitBackupServices does).
func ApplyS3Store(ctx context.Context, cfg *rest.Config, images node.Images) error {
	labels := map[string]any{"app": s3Name}
	tls, err := s3StoreTLS()
	if err != nil {
		return fmt.Errorf("the S3 store's certificate: %w", err)
	}
	objs := []*unstructured.Unstructured{
		{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": S3Namespace}}},
		tls,
		{Object: map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": s3Name, "namespace": S3Namespace},
			"spec": map[string]any{
				"replicas": int64(1),
				"selector": map[string]any{"matchLabels": labels},
				"template": map[string]any{
					"metadata": map[string]any{"labels": labels},
					"spec": map[string]any{
						"containers": []any{map[string]any{
							"name": s3Name, "image": images.Ref("s3store"), "imagePullPolicy": "Never",
							"args": []any{fmt.Sprintf("-listen=:%d", s3Port), "-buckets=" + S3Bucket,
								fmt.Sprintf("-tls-listen=:%d", s3TLSPort), "-tls-cert=/tls/tls.crt", "-tls-key=/tls/tls.key"},
							"ports":          []any{map[string]any{"containerPort": int64(s3Port)}, map[string]any{"containerPort": int64(s3TLSPort)}},
							"readinessProbe": map[string]any{"tcpSocket": map[string]any{"port": int64(s3TLSPort)}, "periodSeconds": int64(2)},
							"volumeMounts":   []any{map[string]any{"name": "tls", "mountPath": "/tls", "readOnly": true}},
						}},
						"volumes": []any{map[string]any{"name": "tls", "secret": map[string]any{"secretName": S3TLSSecret}}},
					},
				},
			},
		}},
		{Object: map[string]any{
			"apiVersion": "v1", "kind": "Service",
			"metadata": map[string]any{"name": s3Name, "namespace": S3Namespace},
			"spec": map[string]any{"selector": labels,
				"ports": []any{map[string]any{"name": "http", "port": int64(s3Port), "targetPort": int64(s3Port)},
					map[string]any{"name": "https", "port": int64(s3TLSPort), "targetPort": int64(s3TLSPort)}}},
		}},
	}
	if _, err := envtest.ApplyObjects(ctx, cfg, "setpoint-test", objs); err != nil {
		return fmt.Errorf("install the S3 store: %w", err)
	}
	return nil
}

// WaitBackupServices waits until the barman-cloud plugin and the S3 store
// are Available.
func WaitBackupServices(ctx context.Context, client kubernetes.Interface) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	if err := node.WaitAvailable(ctx, client, CNPGNamespace, barmanCloudDeployment); err != nil {
		return fmt.Errorf("barman-cloud plugin: %w", err)
	}
	if err := node.WaitAvailable(ctx, client, S3Namespace, s3Name); err != nil {
		return fmt.Errorf("S3 store: %w", err)
	}
	return nil
}
