import { Text } from '@mantine/core';
import { count, plural } from '../../lib/format';
import type { Me } from '../../lib/session';

/** What the plan still allows: the fewest of today's and this month's messages left. */
function allowance(me: Me) {
  const today = Math.max(0, me.limits.daily_limit - me.usage.sent_today);
  const month = Math.max(0, me.limits.monthly_limit - me.usage.sent_this_month);
  return today <= month
    ? { left: today, words: `${plural(today, 'message')} left today (${count(me.limits.daily_limit)} a day)` }
    : { left: month, words: `${plural(month, 'message')} left this month (${count(me.limits.monthly_limit)} a month)` };
}

/**
 * What the plan says of a send to `recipients` as `sends` sends. A list over the plan's recipients
 * per send can go as several sends; one over what is left today or this month cannot, split or not
 * (`overLeft`). `tooMany` says why in words, or is null when the send fits.
 */
export function planFit(me: Me, recipients: number, sends: number) {
  const plan = allowance(me);
  const overLeft = recipients > plan.left;
  const tooMany =
    recipients > me.limits.batch_limit
      ? `The ${me.limits.plan_name} plan allows ${plural(me.limits.batch_limit, 'recipient')} a send, and this list has ${count(recipients)}: ` +
        (overLeft
          ? `even as ${plural(sends, 'send')}, it is more than the plan has (${plan.words}).`
          : `it can go as ${plural(sends, 'send')} of at most ${count(me.limits.batch_limit)}, one batch each.`) +
        ' The plans on Account allow more.'
      : overLeft
        ? `This send has ${plural(recipients, 'recipient')}; the plan has ${plan.words}.`
        : null;
  return { words: plan.words, overLeft, tooMany };
}

/** Under the form: why the plan refuses this send, else what it still allows. */
export function AllowanceNote({ tooMany, words }: { tooMany: string | null; words: string }) {
  return tooMany ? (
    <Text size="sm" c="var(--pg-danger)" data-testid="send-allowance">
      {tooMany}
    </Text>
  ) : (
    <Text size="sm" c="dimmed" data-testid="send-allowance">
      {words[0].toUpperCase() + words.slice(1)}.
    </Text>
  );
}
