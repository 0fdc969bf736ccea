package cmd

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ctxc/ctxc/internal/archive"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/objstore"
	"github.com/ctxc/ctxc/internal/quote"
)

// openBucket opens and checks the store an s3://BUCKET/PREFIX argument names: a missing bucket,
// refused credentials and an endpoint that does not answer are refused before any work.
func openBucket(ctx context.Context, addr string) (*objstore.S3, error) {
	u, err := objstore.ParseURL(addr)
	if err != nil {
		return nil, &UsageError{err}
	}
	store, err := objstore.OpenS3(ctx, u)
	if err != nil {
		return nil, err
	}
	return store, store.Check(ctx)
}

// runArchiveS3 archives into the local staging folder of the bucket, as a local archive, then
// uploads what the bucket lacks.
func runArchiveS3(ctx context.Context, opts *ArchiveOptions) error {
	store, err := openBucket(ctx, opts.Dest)
	if err != nil {
		return err
	}
	stage, err := archive.StageDir(store.Endpoint(), store.String())
	if err != nil {
		return err
	}
	srcs, err := archiveSources(opts, stage)
	if err != nil {
		return err
	}
	sum, err := archiveInto(ctx, opts, stage, srcs)
	if err != nil {
		return err
	}
	upErr := uploadStage(ctx, opts, stage, store, &sum)
	printArchiveSummary(opts, sum)
	if upErr != nil {
		return upErr
	}
	return batchExit(ctx, sum.Failed, sum.Files)
}

// uploadStage sends the staged archive files the bucket lacks, one line each, counted in sum.
func uploadStage(ctx context.Context, opts *ArchiveOptions, stage string, store objstore.Store, sum *archiveSummary) error {
	sent := 0
	sum.Uploaded = &sent
	man, err := archive.ReadManifest(stage)
	if err != nil {
		return err
	}
	bar := iostreams.NewProgress(opts.IO, opts.Global.Bars(), len(man.Files))
	bar.Describe("uploading")
	defer bar.Finish()
	u := &archive.Uploader{Stage: stage, Store: store, DryRun: opts.DryRun, Each: func(r archive.Upload) {
		bar.Add()
		if r.Status == archive.UploadDone {
			sent++
			sum.UpBytes += r.Bytes
		}
		printUpload(opts, bar, r)
	}}
	return u.Run(ctx)
}

// printUpload prints one upload: every archive file with --json, those sent otherwise.
func printUpload(opts *ArchiveOptions, bar *iostreams.Progress, r archive.Upload) {
	if opts.Global.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetEscapeHTML(false)
		enc.Encode(struct {
			Type string `json:"type"`
			archive.Upload
		}{"upload", r})
		return
	}
	if opts.Global.Quiet || r.Status != archive.UploadDone {
		return
	}
	verb := map[bool]string{true: "would upload", false: "uploaded"}[opts.DryRun]
	bar.Println(opts.IO.Out, fmt.Sprintf("%-11s %s: %d bytes", verb, quote.Name(r.Archive), r.Bytes))
}

// mirrorBucket brings the archived sessions of s3://BUCKET/PREFIX into their local mirror and
// returns its folder, which the reading commands then walk as a local archive.
func mirrorBucket(addr string) (string, error) {
	ctx := context.Background()
	store, err := openBucket(ctx, addr)
	if err != nil {
		return "", err
	}
	dir, err := archive.MirrorDir(store.Endpoint(), store.String())
	if err != nil {
		return "", err
	}
	return dir, archive.Mirror(ctx, store, dir)
}
