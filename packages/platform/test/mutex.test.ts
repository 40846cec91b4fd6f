import { describe, expect, it } from 'vitest';
import { Mutex } from '../src/db/mutex.js';

describe('Mutex', () => {
  it('runs callers one at a time in arrival order', async () => {
    const mutex = new Mutex();
    const events: string[] = [];
    const task = (name: string) =>
      mutex.runExclusive(async () => {
        events.push(`${name} start`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        events.push(`${name} end`);
      });
    await Promise.all([task('a'), task('b'), task('c')]);
    expect(events).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
  });

  it('lets the holder re-enter instead of waiting on itself', async () => {
    const mutex = new Mutex();
    const result = await mutex.runExclusive(() => mutex.runExclusive(async () => 'inner'));
    expect(result).toBe('inner');
  });

  it('does not hand the lock to work that merely started inside the holder', async () => {
    const mutex = new Mutex();
    const events: string[] = [];
    let background: Promise<void> = Promise.resolve();
    await mutex.runExclusive(async () => {
      background = new Promise<void>((resolve) => setTimeout(resolve, 1)).then(() =>
        mutex.runExclusive(async () => {
          events.push('background');
        }),
      );
    });
    const other = mutex.runExclusive(async () => {
      events.push('other start');
      await new Promise((resolve) => setTimeout(resolve, 10));
      events.push('other end');
    });
    await Promise.all([background, other]);
    expect(events).toEqual(['other start', 'other end', 'background']);
  });

  it('releases the lock when the holder throws', async () => {
    const mutex = new Mutex();
    await expect(mutex.runExclusive(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await mutex.runExclusive(async () => 'next')).toBe('next');
  });
});
