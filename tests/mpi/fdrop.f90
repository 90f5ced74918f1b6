! fdrop: an unchanged Fortran ScaLAPACK program that calls PDGEMR2D and PDTRAN by name. Built
! twice (`make test-mpi`): linked against ScaLAPACK alone (fdrop_plain) and with
! libnumatile_scalapack first (fdrop_dropin); the two outputs must be the same, line for line.
!
!   mpirun -np R fdrop
!
! For a few geometries it copies a submatrix of A, on a 1 x R grid, into B, on a 2D grid
! (PDGEMR2D, the enclosing context the 1 x R one), then forms C = beta C + alpha A(sub)^T on
! the 2D grid (PDTRAN). Every element carries a value given by its global indices, so each
! process checks its own elements against the formula; process 0 prints, per call, the global
! checksum (sum of value times a weight of the global position: exact in double precision)
! and the mismatches of every process. Exit status 1 when any element is wrong.
program fdrop
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer :: me, np, ctx1, ctx2, p2, q2, k, totbad, tb(1)
  integer :: nprow, npcol, myrow, mycol
  integer, parameter :: ncase = 4
  ! M, N of A and B; submatrix m, n; corners ia, ja, ib, jb; blocks of A and of B
  integer, parameter :: geo(14, ncase) = reshape([ &
       37, 41, 45, 50, 30, 33, 3, 5, 9, 2, 4, 6, 5, 3, &
       64, 64, 64, 64, 64, 64, 1, 1, 1, 1, 8, 8, 16, 16, &
       100, 90, 120, 95, 71, 60, 20, 11, 37, 30, 32, 32, 7, 70, &
       9, 200, 13, 180, 9, 150, 1, 40, 5, 21, 1, 70, 2, 3], [14, ncase])
  real(dp), parameter :: alpha = 2.0_dp, betas(2) = [-1.0_dp, 0.0_dp]

  call blacs_pinfo(me, np)
  ! The 2D grid: as square as the processes allow.
  p2 = int(sqrt(real(np)))
  do while (mod(np, p2) /= 0)
     p2 = p2 - 1
  end do
  q2 = np / p2
  call blacs_get(-1, 0, ctx1)
  call blacs_gridinit(ctx1, 'Row', 1, np)
  call blacs_get(-1, 0, ctx2)
  call blacs_gridinit(ctx2, 'Row', p2, q2)
  totbad = 0
  do k = 1, ncase
     call one_case(geo(:, k), k)
  end do
  call blacs_gridinfo(ctx1, nprow, npcol, myrow, mycol)
  ! Every process's count (each counted its own elements, and adds them per call).
  tb(1) = totbad
  call igsum2d(ctx1, 'All', ' ', 1, 1, tb, 1, -1, -1)
  totbad = tb(1)
  if (me == 0) then
     if (totbad == 0) then
        print '(a)', 'fdrop: every element as expected: PASS'
     else
        print '(a,i0,a)', 'fdrop: ', totbad, ' elements wrong: FAIL'
     end if
  end if
  call blacs_gridexit(ctx1)
  call blacs_gridexit(ctx2)
  call blacs_exit(0)
  if (totbad /= 0) stop 1

contains

  real(dp) function aval(gi, gj)
    integer, intent(in) :: gi, gj
    aval = real(gi * 1000 + gj, dp)
  end function aval

  real(dp) function bval(gi, gj)
    integer, intent(in) :: gi, gj
    bval = -real(gi * 1000 + gj, dp) - 0.5_dp
  end function bval

  ! A local array with f(global i, global j) in its elements (ctx: its grid).
  subroutine fill(x, desc, ctx, which)
    real(dp), intent(out) :: x(:, :)
    integer, intent(in) :: desc(9), ctx, which
    integer :: i, j, gi, gj, pr, pc, mr, mc
    integer, external :: indxl2g
    call blacs_gridinfo(ctx, pr, pc, mr, mc)
    x = -9.0_dp
    do j = 1, size(x, 2)
       do i = 1, size(x, 1)
          gi = indxl2g(i, desc(5), mr, desc(7), pr)
          gj = indxl2g(j, desc(6), mc, desc(8), pc)
          if (gi <= desc(3) .and. gj <= desc(4)) then
             if (which == 0) then
                x(i, j) = aval(gi, gj)
             else
                x(i, j) = bval(gi, gj)
             end if
          end if
       end do
    end do
  end subroutine fill

  subroutine one_case(g, k)
    integer, intent(in) :: g(14), k
    integer :: desca(9), descb(9), descc(9), info, mla, nla, mlb, nlb, mlc, nlc, t
    real(dp), allocatable :: a(:, :), b(:, :), a2(:, :), cm(:, :)
    integer, external :: numroc
    integer :: pr, pc, mr, mc
    real(dp) :: beta
    ! A: g(1) x g(2) on the 1 x np grid, blocks g(11) x g(12).
    call blacs_gridinfo(ctx1, pr, pc, mr, mc)
    mla = max(1, numroc(g(1), g(11), mr, 0, pr))
    nla = max(1, numroc(g(2), g(12), mc, 0, pc))
    call descinit(desca, g(1), g(2), g(11), g(12), 0, 0, ctx1, mla, info)
    allocate (a(mla, nla))
    call fill(a, desca, ctx1, 0)
    ! B: g(3) x g(4) on the 2D grid, blocks g(13) x g(14).
    call blacs_gridinfo(ctx2, pr, pc, mr, mc)
    mlb = max(1, numroc(g(3), g(13), mr, 0, pr))
    nlb = max(1, numroc(g(4), g(14), mc, 0, pc))
    call descinit(descb, g(3), g(4), g(13), g(14), 0, 0, ctx2, mlb, info)
    allocate (b(mlb, nlb))
    call fill(b, descb, ctx2, 1)
    call pdgemr2d(g(5), g(6), a, g(7), g(8), desca, b, g(9), g(10), descb, ctx1)
    call report('pdgemr2d', k, 0, b, descb, g, 0.0_dp)
    ! C = beta C + alpha op(B(sub)), C on the 2D grid: C is g(6) x g(5), the transpose of the
    ! submatrix of B just written, at (1, 1) of a C that is that size plus 3 each way.
    mlc = max(1, numroc(g(6) + 3, g(14), mr, 0, pr))
    nlc = max(1, numroc(g(5) + 3, g(13), mc, 0, pc))
    call descinit(descc, g(6) + 3, g(5) + 3, g(14), g(13), 0, 0, ctx2, mlc, info)
    allocate (cm(mlc, nlc), a2(mlb, nlb))
    a2 = b
    do t = 1, 2
       beta = betas(t)
       call fill(cm, descc, ctx2, 1)
       call pdtran(g(6), g(5), alpha, a2, g(9), g(10), descb, beta, cm, 1, 1, descc)
       call report('pdtran', k, t, cm, descc, g, beta)
    end do
    deallocate (a, b, a2, cm)
  end subroutine one_case

  ! The checksum and the mismatches of one result (kind 0: B after pdgemr2d; else C after pdtran).
  subroutine report(name, k, t, x, desc, g, beta)
    character(*), intent(in) :: name
    integer, intent(in) :: k, t, desc(9), g(14)
    real(dp), intent(in) :: x(:, :), beta
    integer :: i, j, gi, gj, pr, pc, mr, mc, nbad(1)
    integer, external :: indxl2g, numroc
    real(dp) :: want, sums(1)
    call blacs_gridinfo(ctx2, pr, pc, mr, mc)
    sums = 0
    nbad = 0
    do j = 1, numroc(desc(4), desc(6), mc, 0, pc)
       do i = 1, numroc(desc(3), desc(5), mr, 0, pr)
          gi = indxl2g(i, desc(5), mr, 0, pr)
          gj = indxl2g(j, desc(6), mc, 0, pc)
          want = expect(t, gi, gj, g, beta)
          if (x(i, j) /= want) nbad(1) = nbad(1) + 1
          sums(1) = sums(1) + x(i, j) * real(mod(gi * 7 + gj * 13, 101), dp)
       end do
    end do
    call dgsum2d(ctx2, 'All', ' ', 1, 1, sums, 1, -1, -1)
    call igsum2d(ctx2, 'All', ' ', 1, 1, nbad, 1, -1, -1)
    totbad = totbad + nbad(1)
    if (me == 0) print '(a,a,i0,a,i0,a,f0.1,a,i0)', name, ' case ', k, '.', t, &
         ': checksum ', sums(1), ', wrong ', nbad(1)
  end subroutine report

  ! The oracle: B after the copy (t = 0), or C after the transposition with beta (t > 0).
  real(dp) function expect(t, gi, gj, g, beta)
    integer, intent(in) :: t, gi, gj, g(14)
    real(dp), intent(in) :: beta
    integer :: si, sj
    if (t == 0) then
       si = gi - g(9)
       sj = gj - g(10)
       if (si >= 0 .and. si < g(5) .and. sj >= 0 .and. sj < g(6)) then
          expect = aval(g(7) + si, g(8) + sj)
       else
          expect = bval(gi, gj)
       end if
    else if (gi <= g(6) .and. gj <= g(5)) then
       ! C(gi, gj) = beta C + alpha B(ib + gj - 1, jb + gi - 1), that element of B = A's.
       expect = beta * bval(gi, gj) + alpha * aval(g(7) + gj - 1, g(8) + gi - 1)
    else
       expect = bval(gi, gj)
    end if
  end function expect
end program fdrop
