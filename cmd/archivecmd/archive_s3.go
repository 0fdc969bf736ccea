package archivecmd

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ctxc/ctxc/internal/archive"
	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/objstore"
	"github.com/ctxc/ctxc/internal/quote"
)

// runArchiveS3 archives into the local staging folder of the bucket, as a local archive, then
// uploads what the bucket lacks.
func runArchiveS3(ctx context.Context, opts *ArchiveOptions) error {
	store, err := cmdutil.OpenBucket(ctx, opts.Dest)
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
	return cmdutil.BatchExit(ctx, sum.Failed, sum.Files)
}

// uploadStage sends the staged archive files the bucket lacks, one line each, counted in sum.
func uploadStage(ctx context.Context, opts *ArchiveOptions, stage string, store objstore.Store, sum *Summary) error {
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
