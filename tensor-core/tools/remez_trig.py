import mpmath as mp, sys
mp.mp.dps = 60
def remez(f, w, a, b, n, iters=30):
    # minimize max |w(z)(P(z)-f(z))|, deg P = n
    N = n + 2
    xs = [ (a+b)/2 - (b-a)/2*mp.cos(mp.pi*i/(N-1)) for i in range(N)]
    grid = [a + (b-a)*(mp.mpf(i)/4000)**1 for i in range(4001)]
    grid[0] = a
    for it in range(iters):
        A = mp.matrix(N, N); rhs = mp.matrix(N, 1)
        for i, x in enumerate(xs):
            for j in range(n+1):
                A[i, j] = x**j
            A[i, n+1] = (-1)**i / w(x)
            rhs[i] = f(x)
        sol = mp.lu_solve(A, rhs)
        c = [sol[j] for j in range(n+1)]
        E = sol[n+1]
        err = lambda x: w(x)*(mp.polyval(c[::-1], x) - f(x))
        es = [err(x) for x in grid]
        # find local extrema alternating
        ext = []
        for i in range(len(grid)):
            e = es[i]
            l = es[i-1] if i > 0 else None
            r = es[i+1] if i < len(grid)-1 else None
            if (l is None or abs(e) >= abs(l)) and (r is None or abs(e) >= abs(r)):
                ext.append((grid[i], e))
        # merge sign runs keeping largest
        m = []
        for x, e in ext:
            if m and mp.sign(m[-1][1]) == mp.sign(e):
                if abs(e) > abs(m[-1][1]): m[-1] = (x, e)
            else:
                m.append((x, e))
        while len(m) > N:
            if abs(m[0][1]) < abs(m[-1][1]): m.pop(0)
            else: m.pop()
        mx = max(abs(e) for e in es)
        if len(m) < N: print("fewer", len(m)); break
        xs = [x for x, e in m]
        mx = max(abs(e) for e in es)
    return c, mx

def report(name, f, w, a, b, n):
    c, mx = remez(f, w, a, b, n)
    cf = [float(x) for x in c]
    # error with f64 coeffs
    grid = [a + (b-a)*mp.mpf(i)/20000 for i in range(20001)]
    e2 = max(abs(w(x)*(mp.polyval([mp.mpf(v) for v in cf[::-1]], x) - f(x))) for x in grid)
    print(name, 'deg', n, 'err 2^%.2f' % float(mp.log(mx, 2)), 'f64 coeffs 2^%.2f' % float(mp.log(e2, 2)))
    for v in cf: print('    %r,' % v)
    sys.stdout.flush()

eps = None
S = lambda z: mp.sin(mp.sqrt(z))/mp.sqrt(z)
C = lambda z: mp.cos(mp.sqrt(z))
AT = lambda z: mp.atan(mp.sqrt(z))/mp.sqrt(z)
AS = lambda z: mp.asin(mp.sqrt(z))/mp.sqrt(z)
what = sys.argv[1]; n = int(sys.argv[2])
if what == 'sinpi':
    B = (mp.pi/2)**2*(1+mp.mpf(2)**-20); report('sin |r|<=pi/2', lambda z: (S(z)-1)/z, lambda z: z/S(z), B*mp.mpf("1e-4"), B, n)
if what == 'sin4':
    B = (mp.pi/4)**2*(1+mp.mpf(2)**-20); report('sin |r|<=pi/4', lambda z: (S(z)-1)/z, lambda z: z/S(z), B*mp.mpf("1e-4"), B, n)
if what == 'cos4':
    B = (mp.pi/4)**2*(1+mp.mpf(2)**-20); report('cos |r|<=pi/4', lambda z: (C(z)-1)/z, lambda z: z/C(z), B*mp.mpf("1e-4"), B, n)
if what == 'atan':
    B = mp.tan(mp.pi/8)**2*(1+mp.mpf(2)**-20); report('atan |t|<=tan(pi/8)', lambda z: (AT(z)-1)/z, lambda z: z/AT(z), B*mp.mpf("1e-4"), B, n)
if what == 'asin':
    B = mp.mpf(0.25); report('asin |s|<=1/2', lambda z: (AS(z)-1)/z, lambda z: z/AS(z), B*mp.mpf("1e-4"), B, n)
