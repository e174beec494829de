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
  r_spent bigint[];
  r_reserved bigint[];
  d_reserved bigint[];
  d_limit bigint[];
  d_touched boolean[];
  nrows integer;
  item_count integer := jsonb_array_length(batch);
  charges jsonb;
  c jsonb;
  n integer;
  ti integer;
  ri integer;
  rows_of integer[];
  quoted bigint[];
  lim bigint[];
  from_def boolean[];
  strict_ boolean[];
  amount bigint[];
  pause_at integer;
  pause_limit bigint;
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

  select array_agg(u.budget_id), array_agg(u.period), array_agg(u.limit_nanos), array_agg(u.spent_nanos), array_agg(u.reserved_nanos)
    into r_budget, r_period, r_limit, r_spent, r_reserved
    from (select bu.budget_id, bu.period, bu.limit_nanos, bu.spent_nanos, bu.reserved_nanos from budget_usage bu
           where (bu.budget_id, bu.period) in (select ch->>'b', ch->>'p' from jsonb_array_elements(batch) it, jsonb_array_elements(it) ch)
           order by bu.budget_id collate "C", bu.period collate "C" for update of bu) u;

  nrows := coalesce(array_length(r_budget, 1), 0);
  d_reserved := array_fill(0::bigint, array[nrows]);
  d_limit := array_fill(null::bigint, array[nrows]);
  d_touched := array_fill(false, array[nrows]);

  for i in 1 .. item_count loop
    charges := batch->(i - 1);
    n := jsonb_array_length(charges);
    pause_at := null;
    for k in 1 .. n loop
      c := charges->(k - 1);
      ri := null;
      for j in 1 .. nrows loop
        if r_budget[j] = c->>'b' and r_period[j] = c->>'p' then ri := j; exit; end if;
      end loop;
      if ri is null then raise exception 'budget row %/% missing after insert', c->>'b', c->>'p'; end if;
      rows_of[k] := ri;
      amount[k] := (c->>'a')::bigint;
      quoted[k] := (c->>'l')::bigint;
      lim[k] := quoted[k];
      strict_[k] := c->>'m' = 'strict';
      from_def[k] := false;
      if (c->>'s')::boolean then
        ti := array_position(t_id, c->>'b');
        if ti is not null and t_deleted[ti] then
          strict_[k] := false;
        elsif ti is not null then
          if t_paused[ti] and pause_at is null then pause_at := k; pause_limit := t_limit[ti]; end if;
          lim[k] := t_limit[ti];
          strict_[k] := t_mode[ti] <> 'observe';
          from_def[k] := true;
        end if;
      end if;
    end loop;

    refuse_at := null;
    best_at := null;
    if pause_at is null then
      for k in 1 .. n loop
        ri := rows_of[k];
        held := r_spent[ri] + r_reserved[ri] + d_reserved[ri];
        left_ := lim[k] - held - amount[k];
        if strict_[k] and left_ < 0 then refuse_at := k; refuse_left := greatest(0, lim[k] - held); exit; end if;
        if best_at is null or left_ < best then best_at := k; best := left_; end if;
      end loop;
    end if;

    if pause_at is null and refuse_at is null then
      for k in 1 .. n loop
        ri := rows_of[k];
        d_reserved[ri] := d_reserved[ri] + amount[k];
        d_limit[ri] := lim[k];
        d_touched[ri] := true;
      end loop;
      return query select i, true, best_at - 1, null::bigint, best, false;
    else
      -- A refused call reserves nothing but moves a row to the limit in force (a paused one: as quoted).
      for k in 1 .. n loop
        ri := rows_of[k];
        moved := case when pause_at is not null then quoted[k] else lim[k] end;
        if coalesce(d_limit[ri], r_limit[ri]) <> moved then d_limit[ri] := moved; d_touched[ri] := true; end if;
      end loop;
      if pause_at is not null then
        return query select i, false, pause_at - 1, pause_limit, 0::bigint, true;
      else
        return query select i, false, refuse_at - 1, case when from_def[refuse_at] then lim[refuse_at] end, refuse_left, false;
      end if;
    end if;
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
