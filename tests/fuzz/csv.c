/* csv.c — fuzz target: the numeric CSV reader that reloads a run's series.csv,
 * extra.csv and timing.csv (csv_table_parse, experiments/common.c).  The input is
 * the file's bytes; every column is looked up by name and every cell read. */
#include "fuzz.h"

#include <math.h>

#include "../../experiments/experiment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    csv_table t;
    pfb_err err;
    int rc = csv_table_parse(&t, (const char *)data, size, "fuzz.csv", &err);
    fuzz_check_err(rc, &err, "csv_table_parse");
    if (!rc) {
        volatile double sum = 0.0;
        for (size_t c = 0; c < t.ncol; c++) {
            const int k = csv_table_col(&t, t.names[c]);
            if (k < 0 || (size_t)k > c)
                abort(); /* the first column of that name */
            for (size_t r = 0; r < t.nrow; r++)
                sum += csv_table_get(&t, r, (int)c);
        }
        /* out of the table: NaN, never a read */
        if (!isnan(csv_table_get(&t, t.nrow, 0)) || !isnan(csv_table_get(&t, 0, (int)t.ncol)) ||
            !isnan(csv_table_get(&t, 0, -1)) || csv_table_col(&t, "no such column, surely\n") != -1)
            abort();
        (void)sum;
    }
    csv_table_free(&t);
    return 0;
}
