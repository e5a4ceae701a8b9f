package workload

import (
	"strconv"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Media environment, on both the facade (uploads) and the runtime
// (mock:// resolution, attachment references).
const (
	EnvMediaBasePath = "OMNIA_MEDIA_BASE_PATH"

	EnvMediaStorageType        = "OMNIA_MEDIA_STORAGE_TYPE"
	EnvMediaStorageLocalPath   = "OMNIA_MEDIA_STORAGE_LOCAL_PATH"
	EnvMediaStorageS3Bucket    = "OMNIA_MEDIA_STORAGE_S3_BUCKET"
	EnvMediaStorageS3Region    = "OMNIA_MEDIA_STORAGE_S3_REGION"
	EnvMediaStorageS3Prefix    = "OMNIA_MEDIA_STORAGE_S3_PREFIX"
	EnvMediaStorageS3Endpoint  = "OMNIA_MEDIA_STORAGE_S3_ENDPOINT"
	EnvMediaStorageGCSBucket   = "OMNIA_MEDIA_STORAGE_GCS_BUCKET"
	EnvMediaStorageGCSPrefix   = "OMNIA_MEDIA_STORAGE_GCS_PREFIX"
	EnvMediaStorageAzAccount   = "OMNIA_MEDIA_STORAGE_AZURE_ACCOUNT"
	EnvMediaStorageAzContainer = "OMNIA_MEDIA_STORAGE_AZURE_CONTAINER"
	EnvMediaStorageAzPrefix    = "OMNIA_MEDIA_STORAGE_AZURE_PREFIX"
	EnvMediaStorageDefaultTTL  = "OMNIA_MEDIA_STORAGE_DEFAULT_TTL"
	EnvMediaStorageUploadTTL   = "OMNIA_MEDIA_STORAGE_UPLOAD_URL_TTL"
	EnvMediaStorageDownloadTTL = "OMNIA_MEDIA_STORAGE_DOWNLOAD_URL_TTL"
	EnvMediaStorageMaxFileSize = "OMNIA_MEDIA_STORAGE_MAX_FILE_SIZE_BYTES"

	// DefaultMediaBasePath is media.basePath's default.
	DefaultMediaBasePath = "/etc/omnia/media"
)

// The spec's media.storage defaults, written out so the pod shows what is in
// effect.
const (
	defaultMediaTTL         = "24h"
	defaultMediaUploadTTL   = "15m"
	defaultMediaDownloadTTL = "1h"
	defaultMediaMaxFileSize = int64(104857600)
)

// mediaEnv adds the media settings to e.
//
// The spec says both "when media.storage is absent, the facade also uses
// basePath as a local media storage path" and "unset or type: none disables
// media storage". Both hold here: with storage absent only
// OMNIA_MEDIA_BASE_PATH is set and the facade falls back to it; an explicit
// type: none sets OMNIA_MEDIA_STORAGE_TYPE=none, which switches the fallback
// off. Credentials come from storage.secretRef as the cloud SDKs' own
// variables (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY for S3,
// AZURE_ACCOUNT_KEY for Azure).
func mediaEnv(e envSet, ar *v1alpha1.AgentRuntime) {
	m := ar.Spec.Media
	base := DefaultMediaBasePath
	if m != nil && m.BasePath != "" {
		base = m.BasePath
	}
	e.lit(EnvMediaBasePath, base)
	if m == nil || m.Storage == nil {
		return
	}
	s := m.Storage
	t := s.Type
	if t == "" {
		t = "none"
	}
	e.lit(EnvMediaStorageType, string(t))
	if t == "none" {
		return
	}
	switch {
	case t == "local" && s.Local != nil:
		e.litIf(EnvMediaStorageLocalPath, s.Local.BasePath)
	case t == "s3" && s.S3 != nil:
		e.litIf(EnvMediaStorageS3Bucket, s.S3.Bucket)
		e.litIf(EnvMediaStorageS3Region, s.S3.Region)
		e.litIf(EnvMediaStorageS3Prefix, s.S3.Prefix)
		e.litIf(EnvMediaStorageS3Endpoint, s.S3.Endpoint)
		if s.SecretRef != nil {
			e.secret("AWS_ACCESS_KEY_ID", s.SecretRef.Name, "AWS_ACCESS_KEY_ID")
			e.secret("AWS_SECRET_ACCESS_KEY", s.SecretRef.Name, "AWS_SECRET_ACCESS_KEY")
		}
	case t == "gcs" && s.GCS != nil:
		e.litIf(EnvMediaStorageGCSBucket, s.GCS.Bucket)
		e.litIf(EnvMediaStorageGCSPrefix, s.GCS.Prefix)
	case t == "azure" && s.Azure != nil:
		e.litIf(EnvMediaStorageAzAccount, s.Azure.Account)
		e.litIf(EnvMediaStorageAzContainer, s.Azure.Container)
		e.litIf(EnvMediaStorageAzPrefix, s.Azure.Prefix)
		if s.SecretRef != nil {
			e.secret("AZURE_ACCOUNT_KEY", s.SecretRef.Name, "AZURE_ACCOUNT_KEY")
		}
	}
	e.lit(EnvMediaStorageDefaultTTL, stringOr(s.DefaultTTL, defaultMediaTTL))
	e.lit(EnvMediaStorageUploadTTL, stringOr(s.UploadURLTTL, defaultMediaUploadTTL))
	e.lit(EnvMediaStorageDownloadTTL, stringOr(s.DownloadURLTTL, defaultMediaDownloadTTL))
	size := defaultMediaMaxFileSize
	if s.MaxFileSizeBytes != nil {
		size = *s.MaxFileSizeBytes
	}
	e.lit(EnvMediaStorageMaxFileSize, strconv.FormatInt(size, 10))
}

func stringOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
