/* The advect GPU API in a build without CUDA: every entry point fails with one
 * message, so `mutirao advect` runs on the CPU. */
#include <stddef.h>
#include "gpu/advect_gpu.h"
#include "gpu/gpu.h"

int mu_gpu_adv_create(int64_t qlen, int64_t gmax, int mmax, int N, int64_t halo, mu_gpu_adv **out) {
    (void)qlen;
    (void)gmax;
    (void)mmax;
    (void)N;
    (void)halo;
    *out = NULL;
    return 1;
}
void mu_gpu_adv_destroy(mu_gpu_adv *g) {
    (void)g;
}
int mu_gpu_adv_pin(mu_gpu_adv *g, void *host, size_t bytes) {
    (void)g;
    (void)host;
    (void)bytes;
    return 1;
}
int mu_gpu_adv_peer_export(mu_gpu_adv *g, int rounds, int64_t rslot,
                           mu_gpu_adv_ipc h[MU_GPU_ADV_IPC]) {
    (void)g;
    (void)rounds;
    (void)rslot;
    (void)h;
    return 1;
}
int mu_gpu_adv_peer_pack(mu_gpu_adv *g, const mu_gpu_adv_geom *w, int dir, int r) {
    (void)g;
    (void)w;
    (void)dir;
    (void)r;
    return 1;
}
int mu_gpu_adv_peer_unpack(mu_gpu_adv *g, const mu_gpu_adv_geom *w, int dir, int r, int has_src) {
    (void)g;
    (void)w;
    (void)dir;
    (void)r;
    (void)has_src;
    return 1;
}
int mu_gpu_adv_peer_open(mu_gpu_adv *g, int axis, int side,
                         const mu_gpu_adv_ipc h[MU_GPU_ADV_IPC]) {
    (void)g;
    (void)axis;
    (void)side;
    (void)h;
    return 1;
}
void mu_gpu_adv_peer_close(mu_gpu_adv *g) {
    (void)g;
}
int mu_gpu_adv_halo_peer_in(mu_gpu_adv *g, int from_prev, int from_next) {
    (void)g;
    (void)from_prev;
    (void)from_next;
    return 1;
}
int mu_gpu_adv_put(mu_gpu_adv *g, const float *q) {
    (void)g;
    (void)q;
    return 1;
}
int mu_gpu_adv_get(mu_gpu_adv *g, float *q) {
    (void)g;
    (void)q;
    return 1;
}
int mu_gpu_adv_halo(mu_gpu_adv *g, int axis, int nxl, int nyl, int nz, int N, int from, float *host,
                    int unpack) {
    (void)g;
    (void)axis;
    (void)nxl;
    (void)nyl;
    (void)nz;
    (void)N;
    (void)from;
    (void)host;
    (void)unpack;
    return 1;
}
int mu_gpu_adv_wind_put(mu_gpu_adv *g, int axis, const mu_gpu_adv_wtab *t) {
    (void)g;
    (void)axis;
    (void)t;
    return 1;
}
int mu_gpu_adv_has_wind(const mu_gpu_adv *g, int axis) {
    (void)g;
    (void)axis;
    return 0;
}
int mu_gpu_adv_dens_reset(mu_gpu_adv *g, const float *rho, int nz, int64_t cells) {
    (void)g;
    (void)rho;
    (void)nz;
    (void)cells;
    return 1;
}
int mu_gpu_adv_winds(mu_gpu_adv *g, const mu_gpu_adv_geom *w, int *pn) {
    (void)g;
    (void)w;
    (void)pn;
    return 1;
}
int mu_gpu_adv_winds_ahead(mu_gpu_adv *g, const mu_gpu_adv_geom *w) {
    (void)g;
    (void)w;
    return 1;
}
int mu_gpu_adv_check(mu_gpu_adv *g, double *cmax, int *bad) {
    (void)g;
    (void)cmax;
    (void)bad;
    return 1;
}
int mu_gpu_adv_diag(mu_gpu_adv *g, int nxl, int nyl, int nz, const double *rhodv, mu_xsum *acc,
                    int32_t *kmin, int32_t *kmax) {
    (void)g;
    (void)nxl;
    (void)nyl;
    (void)nz;
    (void)rhodv;
    (void)acc;
    (void)kmin;
    (void)kmax;
    return 1;
}
int mu_gpu_adv_dens_next(mu_gpu_adv *g, const mu_gpu_adv_geom *w) {
    (void)g;
    (void)w;
    return 1;
}
int mu_gpu_adv_check_post(mu_gpu_adv *g) {
    (void)g;
    return 1;
}
int mu_gpu_adv_check_wait(mu_gpu_adv *g, double *cmax, int *bad, double sweep_s[3]) {
    (void)g;
    (void)cmax;
    (void)bad;
    (void)sweep_s;
    return 1;
}
int mu_gpu_adv_init_fields(mu_gpu_adv *g, const double *shape, int nxl, int nyl, int nz, int f0,
                           double background, double amp) {
    (void)g;
    (void)shape;
    (void)nxl;
    (void)nyl;
    (void)nz;
    (void)f0;
    (void)background;
    (void)amp;
    return 1;
}
int mu_gpu_adv_begin(mu_gpu_adv *g, const mu_gpu_adv_geom *w, const int *cyc, int64_t *ntasks) {
    (void)g;
    (void)w;
    (void)cyc;
    (void)ntasks;
    return 1;
}
int mu_gpu_adv_halo_out(mu_gpu_adv *g, float **to_prev, float **to_next, float **from_prev,
                        float **from_next, int64_t *count) {
    (void)g;
    *to_prev = *to_next = *from_prev = *from_next = NULL;
    *count = 0;
    return 1;
}
int mu_gpu_adv_halo_in(mu_gpu_adv *g, const float *from_prev, const float *from_next) {
    (void)g;
    (void)from_prev;
    (void)from_next;
    return 1;
}
int mu_gpu_adv_halo_fresh(mu_gpu_adv *g, int axis) {
    (void)g;
    (void)axis;
    return 0;
}
int mu_gpu_adv_pack(mu_gpu_adv *g, const mu_gpu_adv_geom *w, int dir, float *host) {
    (void)g;
    (void)w;
    (void)dir;
    (void)host;
    return 1;
}
int mu_gpu_adv_unpack(mu_gpu_adv *g, const mu_gpu_adv_geom *w, int dir, const float *host) {
    (void)g;
    (void)w;
    (void)dir;
    (void)host;
    return 1;
}
int mu_gpu_adv_lap2(mu_gpu_adv *g, const mu_gpu_adv_geom *w, int sign) {
    (void)g;
    (void)w;
    (void)sign;
    return 1;
}
int mu_gpu_adv_backward(mu_gpu_adv *g, const mu_gpu_adv_geom *w) {
    (void)g;
    (void)w;
    return 1;
}
int mu_gpu_adv_end(mu_gpu_adv *g, const mu_gpu_adv_geom *w, int *lost) {
    (void)g;
    (void)w;
    *lost = 1;
    return 1;
}
void mu_gpu_adv_times(const mu_gpu_adv *g, double *kernel_s, double *copy_s, double *bytes) {
    (void)g;
    *kernel_s = *copy_s = *bytes = 0;
}
