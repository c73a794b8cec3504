/*
 * report.h — rank 0's output: the table (stdout, nccl-tests style: header, units row, one line
 * per record, reasons of failures, an OK / FAILED footer) and the JSON report, written to a
 * temporary file in the same directory and renamed into place (readers never see half a report,
 * and a failed run leaves none).
 */
#ifndef FUSEDNORM_VERIFY_REPORT_H_
#define FUSEDNORM_VERIFY_REPORT_H_

#include <stdio.h>

#include "verify/record.h"
#include "verify/score.h"

typedef struct {
  const char *const *files;
  int nfiles;
  int ranks;
  int cuda_ranks;            /* ranks that ran on CUDA */
  const char *device;        /* rank 0's device name */
  fusednorm_mode mode;
  const fn_options *opts;
  int overrides;             /* any tolerance override given */
} fn_run_info;

/* Counts: *failed (records failing a check), *skipped. */
void fn_report_counts(const fn_record_result *res, int count, int *failed, int *skipped);

void fn_report_table(FILE *out, const fn_record *recs, const fn_record_result *res, int count,
                     const fn_run_info *info, int quiet);

/* Atomic JSON report. 0 or -1 with a message. */
int fn_report_json(const char *path, const fn_record *recs, const fn_record_result *res,
                   int count, const fn_run_info *info, int exit_code, char *err, size_t len);

#endif
