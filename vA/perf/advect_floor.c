/* advect_floor: the device floor of one `mutirao advect` step, measured in
 * this run. Each sweep reads and writes the fields and the face fluxes once,
 * so a step moves 3 x 2 x (fields + fluxes) = 48 N cells bytes at best; over
 * the device-to-device copy bandwidth measured here (bytes read + written)
 * that is the shortest a step can take. perf/bench_advect.py prints the
 * command's step against it.
 *   advect_floor NX NY NZ FIELDS      (prints: bandwidth GB/s, floor s) */
#include <stdio.h>
#include <stdlib.h>
#include "bench_util.h"

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: advect_floor NX NY NZ FIELDS\n");
        return 2;
    }
    double cells = atof(argv[1]) * atof(argv[2]) * atof(argv[3]), fields = atof(argv[4]);
    double median = 0, bw = bench_copy_bandwidth(20, &median);
    printf("d2d_bandwidth_gbs %.1f\nstep_floor_s %.6g\n", bw / 1e9, 48.0 * fields * cells / bw);
    return 0;
}
