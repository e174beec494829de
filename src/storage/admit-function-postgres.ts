/**
 * `renio_admit(batch jsonb, now_ms bigint)`: the budget half of one admission batch, inside
 * PostgreSQL (created by migration 8), so an admission is one statement (store-admit-postgres.ts).
 * It does what store-admit.ts does over SQL, in the same lock order, by the same rule:
 *
 * 1. reads the terms in force of the stored budgets charged, FOR SHARE in id order (a limit
 *    change, pause or deletion waits for the admission, or the admission for it);
 * 2. creates the budget rows not known to exist (`n`), at zero, in key order, ignoring existing;
 * 3. locks every row the batch touches, FOR UPDATE in key order (byte order: no deadlocks);
 * 4. decides each item in order against the rows plus the batch's reservations so far
 *    (decideUnderTerms + decideCharges: a paused stored budget refuses; a deleted one observes;
 *    a strict charge fits iff spent + reserved + amount ≤ limit, all in exact nanos);
 * 5. writes each touched row once (reservations added, the limit in force set).
 *
 * `batch` is an array of items, each an array of charges
 * `{b: budget id, p: period, l: limit nanos, m: mode, a: amount nanos, s: stored, n: row maybe missing}`.
 * One row per item (1-based `o_item`): admitted or not; `o_charge` the 0-based charge that
 * refused it (or the tightest when admitted; null without charges); `o_limit` the refusing
 * budget's limit when it came from its stored definition (else the charge's own); `o_remaining`
 * in nanos (after the reservation when admitted, what is left when refused); `o_paused`.
 */
export const ADMIT_FUNCTION_SQL = String.raw`
create or replace function renio_admit(batch jsonb, now_ms bigint)
returns table(o_item integer, o_admitted boolean, o_charge integer, o_limit bigint, o_remaining bigint, o_paused boolean)
language plpgsql volatile as $renio$
declare
  t_id text[];
  t_limit bigint[];
  t_mode text[];
  t_paused boolean[];
  t_deleted boolean[];
  r_budget text[];
  r_period text[];
  r_limit bigint[];
  r_held bigint[];
  d_reserved bigint[];
  d_limit bigint[];
  d_touched boolean[];
  -- Every charge of the batch, flattened in item then charge order.
  f_item integer[];
  f_row integer[];
  f_amount bigint[];
  f_quoted bigint[];
  f_limit bigint[];
  f_strict boolean[];
  f_stored_limit boolean[];
  f_pause_limit bigint[];
  nrows integer;
  ncharges integer;
  item_count integer := jsonb_array_length(batch);
  first integer := 1;
  last integer;
  ri integer;
  pause_at integer;
  refuse_at integer;
  refuse_left bigint;
  best_at integer;
  best bigint;
  held bigint;
  left_ bigint;
  moved bigint;
begin
  select array_agg(x.id), array_agg(x.limit_nanos), array_agg(x.mode), array_agg(x.paused = 1), array_agg(x.deleted_at is not null)
    into t_id, t_limit, t_mode, t_paused, t_deleted
    from (select d.id, d.limit_nanos, d.mode, d.paused, d.deleted_at from budget_definition d
           where d.id in (select ch->>'b' from jsonb_array_elements(batch) it, jsonb_array_elements(it) ch where (ch->>'s')::boolean)
           order by d.id collate "C" for share of d) x;

  insert into budget_usage (budget_id, period, limit_nanos, spent_nanos, reserved_nanos, updated_at)
    select distinct on (m.b collate "C", m.p collate "C") m.b, m.p, m.l, 0, 0, now_ms
      from (select chs.ch->>'b' b, chs.ch->>'p' p, (chs.ch->>'l')::bigint l, its.io, chs.co
              from jsonb_array_elements(batch) with ordinality its(it, io), jsonb_array_elements(its.it) with ordinality chs(ch, co)
             where (chs.ch->>'n')::boolean) m
     order by m.b collate "C", m.p collate "C", m.io desc, m.co desc
    on conflict (budget_id, period) do nothing;

  select array_agg(u.budget_id), array_agg(u.period), array_agg(u.limit_nanos), array_agg(u.spent_nanos + u.reserved_nanos)
    into r_budget, r_period, r_limit, r_held
    from (select bu.budget_id, bu.period, bu.limit_nanos, bu.spent_nanos, bu.reserved_nanos from budget_usage bu
           where (bu.budget_id, bu.period) in (select ch->>'b', ch->>'p' from jsonb_array_elements(batch) it, jsonb_array_elements(it) ch)
           order by bu.budget_id collate "C", bu.period collate "C" for update of bu) u;
  nrows := coalesce(array_length(r_budget, 1), 0);
  d_reserved := array_fill(0::bigint, array[nrows]);
  d_limit := array_fill(null::bigint, array[nrows]);
  d_touched := array_fill(false, array[nrows]);

  -- Each charge with its row and the terms in force (a deleted stored budget observes at the
  -- charged limit; a live one decides by its stored limit and mode, and refuses when paused).
  select array_agg(x.io::integer order by x.io, x.co), array_agg(r.ri::integer order by x.io, x.co),
         array_agg(x.a order by x.io, x.co), array_agg(x.l order by x.io, x.co),
         array_agg(case when t.id is not null and not t.deleted then t.lim else x.l end order by x.io, x.co),
         array_agg(case when t.id is null then x.m = 'strict' when t.deleted then false else t.mode <> 'observe' end order by x.io, x.co),
         array_agg(t.id is not null and not t.deleted order by x.io, x.co),
         array_agg(case when t.id is not null and not t.deleted and t.paused then t.lim end order by x.io, x.co)
    into f_item, f_row, f_amount, f_quoted, f_limit, f_strict, f_stored_limit, f_pause_limit
    from (select its.io, chs.co, chs.ch->>'b' b, chs.ch->>'p' p, (chs.ch->>'a')::bigint a, (chs.ch->>'l')::bigint l, chs.ch->>'m' m, (chs.ch->>'s')::boolean s
            from jsonb_array_elements(batch) with ordinality its(it, io), jsonb_array_elements(its.it) with ordinality chs(ch, co)) x
    left join unnest(r_budget, r_period) with ordinality r(b, p, ri) on r.b = x.b and r.p = x.p
    left join unnest(t_id, t_limit, t_mode, t_paused, t_deleted) t(id, lim, mode, paused, deleted) on x.s and t.id = x.b;
  ncharges := coalesce(array_length(f_item, 1), 0);
  if array_position(f_row, null) is not null then raise exception 'a budget row is missing after insert'; end if;

  for i in 1 .. item_count loop
    last := first - 1;
    while last < ncharges and f_item[last + 1] = i loop last := last + 1; end loop;
    pause_at := null;
    for k in first .. last loop
      if f_pause_limit[k] is not null then pause_at := k; exit; end if;
    end loop;
    refuse_at := null;
    best_at := null;
    if pause_at is null then
      for k in first .. last loop
        ri := f_row[k];
        held := r_held[ri] + d_reserved[ri];
        left_ := f_limit[k] - held - f_amount[k];
        if f_strict[k] and left_ < 0 then refuse_at := k; refuse_left := greatest(0, f_limit[k] - held); exit; end if;
        if best_at is null or left_ < best then best_at := k; best := left_; end if;
      end loop;
    end if;
    o_item := i;
    if pause_at is null and refuse_at is null then
      for k in first .. last loop
        ri := f_row[k];
        d_reserved[ri] := d_reserved[ri] + f_amount[k];
        d_limit[ri] := f_limit[k];
        d_touched[ri] := true;
      end loop;
      o_admitted := true; o_charge := best_at - first; o_limit := null; o_remaining := best; o_paused := false;
    else
      -- A refused call reserves nothing but moves a row to the limit in force (a paused one: as quoted).
      for k in first .. last loop
        ri := f_row[k];
        moved := case when pause_at is not null then f_quoted[k] else f_limit[k] end;
        if coalesce(d_limit[ri], r_limit[ri]) <> moved then d_limit[ri] := moved; d_touched[ri] := true; end if;
      end loop;
      o_admitted := false;
      if pause_at is not null then
        o_charge := pause_at - first; o_limit := f_pause_limit[pause_at]; o_remaining := 0; o_paused := true;
      else
        o_charge := refuse_at - first; o_limit := case when f_stored_limit[refuse_at] then f_limit[refuse_at] end; o_remaining := refuse_left; o_paused := false;
      end if;
    end if;
    return next;
    first := last + 1;
  end loop;

  for j in 1 .. nrows loop
    if d_touched[j] then
      update budget_usage
         set reserved_nanos = reserved_nanos + d_reserved[j], limit_nanos = coalesce(d_limit[j], limit_nanos), updated_at = now_ms
       where budget_id = r_budget[j] and period = r_period[j];
    end if;
  end loop;
end
$renio$`;
